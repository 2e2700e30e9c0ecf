package dev.highload.profiles.web;

import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.constraints.Size;
import org.hibernate.validator.HibernateValidatorConfiguration;
import org.hibernate.validator.cfg.ConstraintMapping;

import org.springframework.boot.validation.autoconfigure.ValidationConfigurationCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code @Size} on a string counts characters as the OpenAPI document does: JSON Schema's
 * {@code minLength}/{@code maxLength} count Unicode code points, the built-in validator
 * counts UTF-16 units, in which a character outside the Basic Multilingual Plane (an
 * emoji, a mathematical letter, a rare CJK ideograph) counts twice. Without this, a
 * 7-character password with two such characters passed a minimum of 8, and a 60-letter
 * name in such letters failed a maximum of 100. Collections, arrays and other character
 * sequences keep the built-in validators (Hibernate Validator picks the most specific
 * type, here {@code String}).
 */
@Configuration(proxyBeanMethods = false)
class CodePointLengths {

	@Bean
	ValidationConfigurationCustomizer codePointSize() {
		return (configuration) -> {
			if (configuration instanceof HibernateValidatorConfiguration hibernate) {
				ConstraintMapping mapping = hibernate.createConstraintMapping();
				mapping.constraintDefinition(Size.class)
					.includeExistingValidators(true)
					.validatedBy(CodePointSizeValidator.class);
				hibernate.addMapping(mapping);
			}
		};
	}

	/** {@code @Size} for strings, in code points. */
	public static final class CodePointSizeValidator implements ConstraintValidator<Size, String> {

		private int min;

		private int max;

		@Override
		public void initialize(Size size) {
			if (size.min() < 0 || size.max() < size.min()) {
				throw new IllegalArgumentException("Invalid @Size bounds: min " + size.min() + ", max " + size.max());
			}
			this.min = size.min();
			this.max = size.max();
		}

		@Override
		public boolean isValid(String value, ConstraintValidatorContext context) {
			if (value == null) {
				return true;
			}
			int length = value.codePointCount(0, value.length());
			return length >= this.min && length <= this.max;
		}

	}

}
