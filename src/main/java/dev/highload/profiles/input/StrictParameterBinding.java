package dev.highload.profiles.input;

import java.beans.PropertyEditorSupport;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

import org.springframework.beans.PropertyEditorRegistrar;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.format.support.FormattingConversionService;
import org.springframework.validation.Validator;
import org.springframework.web.bind.support.ConfigurableWebBindingInitializer;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * Path variables and query parameters are read in one spelling only, as the OpenAPI
 * document's types say:
 * <ul>
 * <li>an id in the canonical 8-4-4-4-12 hex form: {@link UUID#fromString} also takes
 * shortened groups ({@code 1-1-1-1-1});</li>
 * <li>an integer as decimal digits: Spring's default reads hexadecimal
 * ({@code limit=0x10} was a page of 16, {@code limit=#10} too) and a leading plus sign. A
 * number above {@code int} does not bind either.</li>
 * </ul>
 * Other spellings are 400 like any other malformed value. Property editors, not
 * converters: when a converter refuses a value, the binder falls back to its default
 * editors, and the default ones are the lenient readers above. An id in the path skips
 * the binder altogether: {@link CanonicalUuidPathVariables} reads it in the same
 * spelling.
 * <p>
 * The editors are registered by the binding initializer every data binder starts from
 * (Spring Boot uses a {@link ConfigurableWebBindingInitializer} bean when there is one),
 * not by {@code @InitBinder} methods of a {@code @ControllerAdvice}: Spring MVC builds
 * and invokes those reflectively for every bound argument of every request: a large share
 * of a routed GET's samples in a JFR profile, a small one this way
 * (docs/reports/controls.md, "Earlier runs"). The conversion service and validator are
 * the ones Spring Boot would give the initializer itself.
 */
@Configuration(proxyBeanMethods = false)
// Not in the seeding command, which runs without a web server and so without Spring MVC.
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
class StrictParameterBinding {

	@Bean
	ConfigurableWebBindingInitializer strictBindingInitializer(
			@Qualifier("mvcConversionService") FormattingConversionService conversionService,
			@Qualifier("mvcValidator") Validator validator) {
		ConfigurableWebBindingInitializer initializer = new ConfigurableWebBindingInitializer();
		initializer.setConversionService(conversionService);
		initializer.setValidator(validator);
		initializer.setPropertyEditorRegistrar(strictEditors());
		return initializer;
	}

	/**
	 * Puts {@link CanonicalUuidPathVariables} before Spring MVC's own resolvers, where
	 * {@code WebMvcConfigurer#addArgumentResolvers} cannot: those come after the built-in
	 * ones, and the built-in path variable resolver would take every
	 * {@code @PathVariable}.
	 */
	@Bean
	static BeanPostProcessor uuidPathVariablesFirst() {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				if (bean instanceof RequestMappingHandlerAdapter adapter && adapter.getArgumentResolvers() != null) {
					List<HandlerMethodArgumentResolver> resolvers = new ArrayList<>();
					resolvers.add(new CanonicalUuidPathVariables());
					resolvers.addAll(adapter.getArgumentResolvers());
					adapter.setArgumentResolvers(resolvers);
				}
				return bean;
			}

		};
	}

	static PropertyEditorRegistrar strictEditors() {
		return (registry) -> {
			registry.registerCustomEditor(UUID.class, new CanonicalUuidEditor());
			registry.registerCustomEditor(int.class, new DecimalIntegerEditor());
			registry.registerCustomEditor(Integer.class, new DecimalIntegerEditor());
		};
	}

	static final class CanonicalUuidEditor extends PropertyEditorSupport {

		@Override
		public void setAsText(String text) {
			if (text == null || text.isEmpty()) {
				setValue(null);
			}
			else if (CanonicalUuid.matches(text)) {
				setValue(UUID.fromString(text));
			}
			else {
				throw new IllegalArgumentException("Not a UUID in canonical form");
			}
		}

	}

	static final class DecimalIntegerEditor extends PropertyEditorSupport {

		private static final Pattern DECIMAL = Pattern.compile("-?[0-9]{1,10}");

		@Override
		public void setAsText(String text) {
			if (text == null || text.isEmpty()) {
				setValue(null);
			}
			else if (DECIMAL.matcher(text).matches()) {
				// Above 2^31 - 1: NumberFormatException, an IllegalArgumentException.
				setValue(Integer.parseInt(text));
			}
			else {
				throw new IllegalArgumentException("Not a decimal integer");
			}
		}

	}

}
