package dev.highload.profiles.web;

import java.beans.PropertyEditorSupport;
import java.util.regex.Pattern;

import org.springframework.web.bind.WebDataBinder;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.InitBinder;

/**
 * Integer parameters are read as decimal digits only, as the OpenAPI document's
 * {@code integer} means. Spring's default reads hexadecimal ({@code limit=0x10} was a
 * page of 16, {@code limit=#10} too) and a leading plus sign; such values are 400 like
 * any other malformed number. Overflow stays 400: a number above {@code int} does not
 * bind either.
 */
@ControllerAdvice
class DecimalIntegerBinding {

	private static final Pattern DECIMAL = Pattern.compile("-?[0-9]{1,10}");

	@InitBinder
	void decimalIntegers(WebDataBinder binder) {
		binder.registerCustomEditor(int.class, new DecimalIntegerEditor());
		binder.registerCustomEditor(Integer.class, new DecimalIntegerEditor());
	}

	static final class DecimalIntegerEditor extends PropertyEditorSupport {

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
