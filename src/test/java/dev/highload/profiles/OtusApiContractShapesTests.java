package dev.highload.profiles;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract's shapes in {@link OtusApiContractIntegrationTests} refuse what a client
 * written to the contract would: a null where a string is typed, a 5xx body without its
 * message or with a code that is no integer.
 */
class OtusApiContractShapesTests {

	private static JsonNode json(String text) {
		return JsonMapper.shared().readTree(text);
	}

	@Test
	void aProfileWithANullOrAMistypedFieldIsRefused() {
		String valid = "{\"id\":\"0190\",\"first_name\":\"А\",\"second_name\":\"Б\",\"birthdate\":\"1990-05-17\"";
		assertThat(OtusApiContractIntegrationTests.USER.violations("$", json(valid + "}"))).isEmpty();
		assertThat(OtusApiContractIntegrationTests.USER.violations("$", json(valid + ",\"city\":\"Омск\",\"x\":1}")))
			.isEmpty();
		assertThat(OtusApiContractIntegrationTests.USER.violations("$", json(valid + ",\"city\":null}")))
			.containsExactly("$.city is not a string: null");
		assertThat(OtusApiContractIntegrationTests.USERS.violations("$", json("[" + valid + ",\"biography\":null}]")))
			.containsExactly("$[0].biography is not a string: null");
		assertThat(OtusApiContractIntegrationTests.USER.violations("$",
				json("{\"birthdate\":\"17.05.1990\",\"first_name\":7}")))
			.containsExactlyInAnyOrder("$.birthdate is not a full-date (RFC 3339): \"17.05.1990\"",
					"$.first_name is not a string: 7");
	}

	@Test
	void a5xxBodyNeedsItsMessageAndAnIntegerCode() {
		OtusApiContractIntegrationTests.Shape shape = OtusApiContractIntegrationTests.SERVER_ERROR;
		assertThat(shape.violations("$", json("{\"message\":\"m\",\"code\":503,\"request_id\":\"r\",\"title\":\"t\"}")))
			.isEmpty();
		assertThat(shape.violations("$", json("{\"title\":\"t\",\"request_id\":\"r\"}")))
			.containsExactly("$.message is required");
		assertThat(shape.violations("$", json("{\"message\":\"m\",\"code\":\"503\"}")))
			.containsExactly("$.code is not an integer: \"503\"");
		assertThat(shape.violations("$", json("[]"))).containsExactly("$ is not an object: []");
	}

}
