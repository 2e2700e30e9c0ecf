package dev.highload.profiles.user;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.LocalDate;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;

/** The annotated date must not be earlier than {@link #value()} (ISO date). */
@Documented
@Constraint(validatedBy = NotBefore.Validator.class)
@Target({ ElementType.FIELD, ElementType.PARAMETER, ElementType.RECORD_COMPONENT })
@Retention(RetentionPolicy.RUNTIME)
@interface NotBefore {

	String value();

	String message() default "must not be before {value}";

	Class<?>[] groups() default {};

	Class<? extends Payload>[] payload() default {};

	class Validator implements ConstraintValidator<NotBefore, LocalDate> {

		private LocalDate earliest;

		@Override
		public void initialize(NotBefore annotation) {
			this.earliest = LocalDate.parse(annotation.value());
		}

		@Override
		public boolean isValid(LocalDate value, ConstraintValidatorContext context) {
			return value == null || !value.isBefore(this.earliest);
		}

	}

}
