package dev.highload.profiles.consistency;

import java.util.Set;

import dev.highload.profiles.routing.Positioned;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import org.springdoc.core.customizers.OperationCustomizer;
import org.springdoc.core.utils.SpringDocUtils;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What the OpenAPI document says of consistency tokens: the header of each
 * {@link ConsistentRead} operation, the body of a {@link Positioned} or {@link Written}
 * as its value alone (what {@link ConsistencyTokenAnswers} writes), and no parameter for
 * {@link AtLeast}, which the request's header or cookie gives.
 */
@Configuration(proxyBeanMethods = false)
class ConsistencyTokenDocumentation {

	static {
		SpringDocUtils.getConfig()
			.addResponseWrapperToIgnore(Positioned.class)
			.addResponseWrapperToIgnore(Written.class)
			.addRequestWrapperToIgnore(AtLeast.class);
	}

	/** The Consistency-Token header of {@link ConsistentRead} operations. */
	@Bean
	OperationCustomizer consistencyTokenHeaders() {
		return (operation, handlerMethod) -> {
			ConsistentRead read = handlerMethod.getMethodAnnotation(ConsistentRead.class);
			if (read == null) {
				return operation;
			}
			Schema<String> token = new Schema<String>().types(Set.of("string")).pattern(ConsistencyTokens.PATTERN);
			if (!read.write()) {
				operation.addParametersItem(new Parameter().in("header")
					.name(ConsistencyTokens.HEADER)
					.required(false)
					.description("The highest consistency token the client holds (or the " + ConsistencyTokens.COOKIE
							+ " cookie, " + ConsistencyTokens.SECURE_COOKIE
							+ " over HTTPS): the read runs on a node that has "
							+ "replayed at least that position, so it shows the client's own writes and "
							+ "nothing older than what it has seen (docs/consistency.md). A header that is malformed, "
							+ "or not signed by this service: 400; such a cookie is ignored and cleared")
					.schema(token));
			}
			Header answered = new Header().required(!read.write())
				.description(read.write() ? "The position of this write: send it back with later reads"
						: "The position this read saw: keep the highest and send it back")
				.schema(token);
			operation.getResponses().forEach((status, response) -> {
				if (status.startsWith("2")) {
					response.addHeaderObject(ConsistencyTokens.HEADER, answered);
				}
			});
			return operation;
		};
	}

}
