package dev.highload.profiles.web;

import java.beans.PropertyEditorSupport;
import java.util.UUID;

import org.springframework.web.bind.WebDataBinder;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.InitBinder;

/**
 * Ids in paths and query parameters are read only in the canonical 8-4-4-4-12 hex form.
 * {@link UUID#fromString} also takes shortened groups ({@code 1-1-1-1-1}), which the
 * OpenAPI document's pattern does not allow; such ids are answered 400 like any other
 * malformed id. A property editor, not a converter: when a converter refuses a value, the
 * binder falls back to its default editors, and the default UUID editor is the lenient
 * {@code UUID.fromString}.
 */
@ControllerAdvice
class CanonicalUuidBinding {

	@InitBinder
	void canonicalUuids(WebDataBinder binder) {
		binder.registerCustomEditor(UUID.class, new CanonicalUuidEditor());
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

}
