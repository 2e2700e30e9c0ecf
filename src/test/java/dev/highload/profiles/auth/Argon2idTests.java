package dev.highload.profiles.auth;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

import org.springframework.security.crypto.argon2.Argon2PasswordEncoder;

import static org.assertj.core.api.Assertions.assertThat;

class Argon2idTests {

	// Small costs keep the test fast; the code path is the one of the real costs.
	private final Argon2id argon2 = new Argon2id(16, 32, 256, 2);

	private final Argon2PasswordEncoder spring = new Argon2PasswordEncoder(16, 32, 1, 256, 2);

	@Test
	void hashesVerifyAndWrongPasswordsDoNot() {
		String hash = this.argon2.hash("correct horse battery");
		assertThat(hash).matches("\\$argon2id\\$v=19\\$m=256,t=2,p=1\\$[A-Za-z0-9+/]{22}\\$[A-Za-z0-9+/]{43}");
		assertThat(this.argon2.matches("correct horse battery", hash)).isTrue();
		assertThat(this.argon2.matches("correct horse batterY", hash)).isFalse();
		assertThat(this.argon2.hash("correct horse battery")).isNotEqualTo(hash);
	}

	@Test
	void springSecurityAndThisVerifyEachOther() {
		// The blocks this thread reuses are dirty from earlier hashes: a result that
		// depended on them would not match Spring Security's, which allocates fresh ones.
		for (int i = 0; i < 5; i++) {
			String password = "пароль-" + i + "-ü";
			assertThat(this.argon2.matches(password, this.spring.encode(password))).isTrue();
			assertThat(this.spring.matches(password, this.argon2.hash(password))).isTrue();
			assertThat(this.spring.matches(password + "x", this.argon2.hash(password))).isFalse();
		}
	}

	@Test
	void hashesWithOtherStoredCostsStillVerify() {
		Argon2PasswordEncoder cheaper = new Argon2PasswordEncoder(16, 32, 1, 64, 1);
		assertThat(this.argon2.matches("secret-password", cheaper.encode("secret-password"))).isTrue();
	}

	@Test
	void anythingButAnArgon2idStringIsNoMatch() {
		String good = this.argon2.hash("secret-password");
		List<String> bad = List.of("", "secret-password", good.replace("argon2id", "argon2i"),
				good.replace("v=19", "v=16"), good.substring(0, good.length() - 3) + "!!!",
				good.replace("m=256", "m=999999999"), good.replace("t=2", "t=9999"), good.replace("p=1", "p=0"),
				good + "$extra");
		for (String encoded : bad) {
			assertThat(this.argon2.matches("secret-password", encoded)).as(encoded).isFalse();
		}
		assertThat(this.argon2.matches("secret-password", null)).isFalse();
	}

	@Test
	void threadsHashIndependently() throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(4);
		try {
			List<Future<Boolean>> results = new ArrayList<>();
			for (int i = 0; i < 40; i++) {
				String password = "password-" + i;
				results.add(pool.submit(() -> this.spring.matches(password, this.argon2.hash(password))));
			}
			for (Future<Boolean> result : results) {
				assertThat(result.get()).isTrue();
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

}
