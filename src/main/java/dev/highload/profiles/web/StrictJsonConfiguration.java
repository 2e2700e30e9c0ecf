package dev.highload.profiles.web;

import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.type.LogicalType;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Request bodies are read as their JSON types say: a number or a boolean is not a string
 * ({@code "city": false} would otherwise become the city "false"), and a number is not a
 * date (it would be read as days since 1970). Such fields get 400 like any other invalid
 * value, as the OpenAPI document's types promise.
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

}
