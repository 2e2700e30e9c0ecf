package dev.highload.profiles.auth;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Checks {@code app.auth.token-keys} before any bean is made: a service with unusable
 * keys stops at once, instead of after connecting to the database and migrating it, which
 * the {@link TokenService} bean alone would wait for.
 */
@Component
class TokenKeysCheck implements BeanFactoryPostProcessor, EnvironmentAware {

	private Environment environment;

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		Binder binder = Binder.get(this.environment);
		TokenKeys.check(binder.bindOrCreate("app.auth", AuthProperties.class).tokenKeys());
	}

}
