package dev.highload.profiles.input;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which strings PostgreSQL can store as sent. */
class StorableTextTests {

	@Test
	void onlyU0000AndUnpairedSurrogatesCannotBeStored() {
		assertThat(StorableText.problem("a\u0000b")).isEqualTo(StorableText.NUL);
		assertThat(StorableText.problem("a\ud800")).isEqualTo(StorableText.UNPAIRED_SURROGATE);
		assertThat(StorableText.problem("\udc00a")).isEqualTo(StorableText.UNPAIRED_SURROGATE);
		assertThat(StorableText.problem("\ud800\ud800\udc00")).isEqualTo(StorableText.UNPAIRED_SURROGATE);
		// An astral character, a combining mark, U+FFFD and a noncharacter are text.
		assertThat(StorableText.problem("\ud835\udc00 e\u0301 \ufffd \ufdd0 \uffff")).isNull();
		assertThat(StorableText.problem("")).isNull();
	}

}
