package dev.highload.profiles.database;

import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Service;

/**
 * Puts {@link DatabaseFailures} around every {@code @Service} bean, outside its
 * transaction (the transaction advisor has the lowest precedence), so that what a commit
 * throws is translated as well as what the method body throws.
 */
@Configuration(proxyBeanMethods = false)
class DatabaseFailureTranslation {

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static Advisor databaseFailureAdvisor() {
		DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(Service.class, true),
				new DatabaseFailures.Interceptor());
		advisor.setOrder(Ordered.HIGHEST_PRECEDENCE);
		return advisor;
	}

}
