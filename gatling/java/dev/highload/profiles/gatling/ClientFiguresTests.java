package dev.highload.profiles.gatling;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The answers' line of the summary, which the bench scripts judge by: exact percentiles
 * over whole milliseconds, for all requests and per request name.
 */
class ClientFiguresTests {

	@Test
	void answersLineGivesExactPercentilesPerRequestAndForAll() {
		Map<String, AtomicLongArray> answers = new HashMap<>();
		for (int i = 0; i < 980; i++) {
			ClientFigures.count(answers, "first", (i < 490) ? 0 : 1);
		}
		for (int i = 0; i < 10; i++) {
			ClientFigures.count(answers, "first", 2);
		}
		for (int i = 0; i < 10; i++) {
			ClientFigures.count(answers, "first", 9);
		}
		ClientFigures.count(answers, "after", 70_000);
		ClientFigures.count(answers, "after", -3);
		// 1,002 answers: the 992nd fastest (99 %) took 9 ms, the 952nd (95 %) and the
		// 501st 1 ms; the one
		// slower than the counted range is counted at its end, a negative time at 0.
		assertThat(ClientFigures.answerLine(answers)).isEqualTo(
				"answered: 1002 requests answered 200, p50 1 ms, p95 1 ms, p99 9 ms, max 60000 ms (after: 2, p99 60000 ms; first: 1000, p99 2 ms)%n"
					.formatted());
	}

	@Test
	void refusalLineCountsAndTimesEachRequestApart() {
		Map<String, AtomicLongArray> refusals = new HashMap<>();
		for (int i = 0; i < 100; i++) {
			ClientFigures.count(refusals, "GET /user/{id} first minute", (i < 99) ? 3 : 48);
		}
		ClientFigures.count(refusals, "GET /user/{id} after", 7);
		assertThat(ClientFigures.refusalLine(refusals)).isEqualTo(
				"shed: 101 requests answered 503 at capacity, p99 7 ms (GET /user/{id} after: 1, p99 7 ms; GET /user/{id} first minute: 100, p99 3 ms)%n"
					.formatted());
	}

	@Test
	void answersLineSaysSoWhenNothingWasAnswered() {
		assertThat(ClientFigures.answerLine(new HashMap<>()))
			.isEqualTo("answered: 0 requests answered 200%n".formatted());
	}

}
