package dev.highload.profiles.input;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;

/**
 * The length of a string in Unicode code points, as the OpenAPI document counts it: JSON
 * Schema's {@code minLength}/{@code maxLength} count code points, while {@code @Size}
 * counts UTF-16 units, in which a character outside the Basic Multilingual Plane (an
 * emoji, a mathematical letter, a rare CJK ideograph) counts twice. With {@code @Size} a
 * 7-character password with two such characters passed a minimum of 8, and a 60-letter
 * name in such letters failed a maximum of 100.
 * <p>
 * It says what {@code @Size} says otherwise, in the same words ({@code size must be
 * between {min} and {max}}, in the client's language), and
 * {@code openapi.ApiDocumentation} writes its bounds into the document as minLength and
 * maxLength. Null is valid.
 */
@Documented
@Constraint(validatedBy = CodePointLength.Validator.class)
@Target({ ElementType.METHOD, ElementType.FIELD, ElementType.ANNOTATION_TYPE, ElementType.CONSTRUCTOR,
		ElementType.PARAMETER, ElementType.TYPE_USE })
@Retention(RetentionPolicy.RUNTIME)
public @interface CodePointLength {

	/** The fewest code points, 0 or more. */
	int min() default 0;

	/** The most code points, at least {@link #min()}. */
	int max() default Integer.MAX_VALUE;

	/** The message of {@code @Size}, so that answers read as they always have. */
	String message() default "{jakarta.validation.constraints.Size.message}";

	Class<?>[] groups() default {};

	Class<? extends Payload>[] payload() default {};

	/** Counts code points. */
	class Validator implements ConstraintValidator<CodePointLength, String> {

		private int min;

		private int max;

		@Override
		public void initialize(CodePointLength length) {
			if (length.min() < 0 || length.max() < length.min()) {
				throw new IllegalArgumentException(
						"Invalid @CodePointLength bounds: min " + length.min() + ", max " + length.max());
			}
			this.min = length.min();
			this.max = length.max();
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
