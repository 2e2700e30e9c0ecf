package dev.highload.profiles.input;

import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.UUID;
import java.util.regex.Pattern;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.deser.jdk.StringDeserializer;
import tools.jackson.databind.deser.std.StdScalarDeserializer;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.type.LogicalType;

import org.springframework.boot.http.converter.autoconfigure.ServerHttpMessageConvertersCustomizer;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.converter.xml.Jaxb2RootElementHttpMessageConverter;

/**
 * Request bodies are read as their JSON types say, and nothing is read in two ways:
 * <ul>
 * <li>a number or a boolean is not a string ({@code "city": false} would otherwise become
 * the city "false"), and a number is not a date (it would be read as days since
 * 1970);</li>
 * <li>a key given twice is refused (Jackson kept the last one silently);</li>
 * <li>every string is {@link StorableText storable as sent}: no U+0000, no unpaired
 * surrogate;</li>
 * <li>a date is {@code yyyy-MM-dd} and nothing else: Jackson trims spaces and control
 * characters (U+0000 included) and drops a time of day ({@code 1990-01-01T23:00:00Z} was
 * stored as 1990-01-01);</li>
 * <li>a UUID is in canonical form only: Jackson also trims it and reads 24 characters of
 * Base64 as a UUID, another spelling of the same login id.</li>
 * </ul>
 * Such fields get 400 naming them, like any other invalid value, as the OpenAPI
 * document's types promise.
 * <p>
 * And the API speaks JSON alone: Hibernate brings JAXB onto the classpath, and Spring MVC
 * then adds an XML converter that writes nothing of ours (no class here is an
 * {@code @XmlRootElement}) but, to say so, searched the class hierarchy of every answer
 * for that annotation, a cost seen in the CPU profile of every GET by id
 * (docs/reports/controls.md, "Earlier runs").
 */
@Configuration(proxyBeanMethods = false)
class StrictJsonConfiguration {

	@Bean
	JsonMapperBuilderCustomizer noScalarCoercion() {
		return (builder) -> builder
			.withCoercionConfig(LogicalType.Textual,
					(config) -> config.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
						.setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
						.setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
			.withCoercionConfig(LogicalType.DateTime,
					(config) -> config.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
						.setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
						.setCoercion(CoercionInputShape.Array, CoercionAction.Fail)
						.setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail));
	}

	@Bean
	JsonMapperBuilderCustomizer unambiguousValues() {
		return (builder) -> builder.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
			.addModule(new SimpleModule("strict-values").addDeserializer(String.class, new StorableStrings())
				.addDeserializer(LocalDate.class, new IsoDates())
				.addDeserializer(UUID.class, new CanonicalUuids()));
	}

	@Bean
	ServerHttpMessageConvertersCustomizer noXmlConverter() {
		return (builder) -> builder.configureMessageConvertersList(
				(converters) -> converters.removeIf(Jaxb2RootElementHttpMessageConverter.class::isInstance));
	}

	/** Strings as Jackson reads them, refused unless they can be stored as sent. */
	static final class StorableStrings extends StringDeserializer {

		@Override
		public String deserialize(JsonParser parser, DeserializationContext context) {
			String value = super.deserialize(parser, context);
			String problem = (value != null) ? StorableText.problem(value) : null;
			if (problem != null) {
				throw new InvalidJsonValueException(parser, String.class, problem);
			}
			return value;
		}

	}

	/** {@code yyyy-MM-dd}, a day of the proleptic Gregorian calendar, exactly. */
	static final class IsoDates extends StdScalarDeserializer<LocalDate> {

		private static final Pattern FORMAT = Pattern.compile("[0-9]{4}-[0-9]{2}-[0-9]{2}");

		IsoDates() {
			super(LocalDate.class);
		}

		@Override
		public LocalDate deserialize(JsonParser parser, DeserializationContext context) {
			if (!parser.hasToken(JsonToken.VALUE_STRING)) {
				return (LocalDate) context.handleUnexpectedToken(LocalDate.class, parser);
			}
			String text = parser.getString();
			if (!FORMAT.matcher(text).matches()) {
				throw new InvalidJsonValueException(parser, LocalDate.class, "must be a date as yyyy-MM-dd");
			}
			try {
				return LocalDate.parse(text);
			}
			catch (DateTimeParseException ex) {
				throw new InvalidJsonValueException(parser, LocalDate.class, "must be a day of the calendar");
			}
		}

	}

	/**
	 * The canonical 8-4-4-4-12 form only, as {@link StrictParameterBinding} for paths.
	 */
	static final class CanonicalUuids extends StdScalarDeserializer<UUID> {

		CanonicalUuids() {
			super(UUID.class);
		}

		@Override
		public UUID deserialize(JsonParser parser, DeserializationContext context) {
			if (!parser.hasToken(JsonToken.VALUE_STRING)) {
				return (UUID) context.handleUnexpectedToken(UUID.class, parser);
			}
			String text = parser.getString();
			if (!CanonicalUuid.matches(text)) {
				throw new InvalidJsonValueException(parser, UUID.class, "must be a UUID in canonical form");
			}
			return UUID.fromString(text);
		}

	}

}
