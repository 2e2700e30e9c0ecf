package dev.highload.profiles;

import java.util.Arrays;
import java.util.stream.Stream;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.highload.profiles.consistency.ConsistencyTokens;
import dev.highload.profiles.database.NodePools;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import org.junit.jupiter.api.Test;

import org.springframework.data.repository.Repository;
import org.springframework.http.ProblemDetail;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.web.ErrorResponse;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The package dependencies as they are meant to be: the HTTP answers to failures
 * (failure) on top, knowing every package and known by none; features under it (user,
 * auth, seed); under them the consistency tokens over HTTP (consistency), which know the
 * positions of routing and the input rules and no feature; underneath, the cross-cutting
 * HTTP plumbing, one package per job (the API document, openapi; the input rules, input;
 * the problem answers, problem; request ids and metrics, observability; handler
 * arguments, arguments), which node serves a read (routing) and, under routing, the
 * database plumbing (database: pools, the write path, what a failure means), none of them
 * depending on a feature, and routing and database on nothing of HTTP. Admission control
 * stands beside the HTTP plumbing, in front of everything. The embedded cluster is
 * development tooling in src/test, outside the production code.
 */
class ArchitectureTests {

	private static final JavaClasses MAIN = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("dev.highload.profiles");

	/** The cross-cutting HTTP plumbing, one package per job. */
	private static final String[] HTTP_PLUMBING = { "..profiles.openapi..", "..profiles.input..",
			"..profiles.problem..", "..profiles.observability..", "..profiles.arguments.." };

	@Test
	void theFeaturePackagesHaveNoCycles() {
		slices().matching("dev.highload.profiles.(*)..").should().beFreeOfCycles().check(MAIN);
	}

	@Test
	void theHttpPlumbingKnowsNoFeatureAndNoFailure() {
		noClasses().that()
			.resideInAnyPackage(HTTP_PLUMBING)
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("..profiles.user..", "..profiles.auth..", "..profiles.seed..", "..profiles.routing..",
					"..profiles.database..", "..profiles.failure..", "..profiles.consistency..",
					"..profiles.admission..", "..profiles.warmup..")
			.check(MAIN);
	}

	@Test
	void theHttpPlumbingIsLayeredWithoutCycles() {
		// The API document states the input rules' bounds; the input rules answer in the
		// problem shape; a problem carries the request's id. Handler arguments stand
		// apart.
		slices().matching("dev.highload.profiles.(openapi|input|problem|observability|arguments)..")
			.should()
			.beFreeOfCycles()
			.check(MAIN);
		layeredArchitecture().consideringOnlyDependenciesInLayers()
			.layer("openapi")
			.definedBy("..profiles.openapi..")
			.layer("input")
			.definedBy("..profiles.input..")
			.layer("problem")
			.definedBy("..profiles.problem..")
			.layer("observability")
			.definedBy("..profiles.observability..")
			.layer("arguments")
			.definedBy("..profiles.arguments..")
			.whereLayer("openapi")
			.mayNotBeAccessedByAnyLayer()
			.whereLayer("input")
			.mayOnlyBeAccessedByLayers("openapi")
			.whereLayer("problem")
			.mayOnlyBeAccessedByLayers("input")
			.whereLayer("observability")
			.mayOnlyBeAccessedByLayers("problem", "input")
			.whereLayer("arguments")
			.mayNotBeAccessedByAnyLayer()
			.check(MAIN);
	}

	@Test
	void theConsistencyTokensKnowNoFeature() {
		// The features take an AtLeast and return a position; the keys are lent
		// through consistency's own KeyRing, so auth, which lends them, stays above.
		noClasses().that()
			.resideInAPackage("..profiles.consistency..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("..profiles.user..", "..profiles.auth..", "..profiles.seed..", "..profiles.database..",
					"..profiles.failure..", "..profiles.admission..")
			.check(MAIN);
	}

	@Test
	void theConsistencyTokenCodeLivesInOnePackage() {
		classes().that()
			.haveSimpleNameStartingWith("Consistency")
			.or()
			.haveSimpleNameStartingWith("ConsistentRead")
			.should()
			.resideInAPackage("..profiles.consistency..")
			.check(MAIN);
		// A handler takes and returns positions; only consistency reads and writes the
		// token, and failure names the position of a 404.
		noClasses().that()
			.resideOutsideOfPackages("..profiles.consistency..", "..profiles.failure..")
			.should()
			.dependOnClassesThat()
			.belongToAnyOf(ConsistencyTokens.class)
			.check(MAIN);
	}

	@Test
	void noHandlerTakesTheServletRequestOrResponse() {
		// What a handler needs of the request is bound by Spring MVC's resolvers
		// (consistency's AtLeast among them), and what it answers is its return value.
		methods().that()
			.areDeclaredInClassesThat()
			.areAnnotatedWith(RestController.class)
			.should(new ArchCondition<JavaMethod>("take no servlet request or response") {
				@Override
				public void check(JavaMethod method, ConditionEvents events) {
					for (JavaClass type : method.getRawParameterTypes()) {
						if (type.isAssignableTo(ServletRequest.class) || type.isAssignableTo(ServletResponse.class)) {
							events.add(SimpleConditionEvent.violated(method,
									method.getFullName() + " takes " + type.getName()));
						}
					}
				}
			})
			.check(MAIN);
	}

	@Test
	void admissionControlKnowsNoFeatureAndNoDatabase() {
		// It decides before anything works for a request, from the request alone.
		noClasses().that()
			.resideInAPackage("..profiles.admission..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("..profiles.user..", "..profiles.auth..", "..profiles.seed..", "..profiles.routing..",
					"..profiles.database..", "..profiles.failure..", "..profiles.consistency..", "java.sql..",
					"javax.sql..")
			.check(MAIN);
	}

	@Test
	void nothingDependsOnTheHttpAnswersToFailures() {
		// Only Spring calls failure's advice: a feature that named it would be choosing
		// its own HTTP answer again.
		noClasses().that()
			.resideOutsideOfPackage("..profiles.failure..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("..profiles.failure..")
			.check(MAIN);
	}

	@Test
	void onlyTheProblemAnswersTheInputRulesAndFailureMakeProblemAnswers() {
		// The features and routing throw exceptions that say what happened; failure turns
		// them into answers (input's InvalidParameterException is input's own rule).
		noClasses().that()
			.resideOutsideOfPackages("..profiles.failure..", "..profiles.problem..", "..profiles.input..")
			.should()
			.dependOnClassesThat()
			.belongToAnyOf(ProblemDetail.class, ErrorResponse.class, ErrorResponseException.class,
					ResponseStatusException.class)
			.check(MAIN);
	}

	@Test
	void routingAndTheDatabasePlumbingDependOnNoWebType() {
		noClasses().that()
			.resideInAnyPackage("..profiles.routing..", "..profiles.database..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(plus(HTTP_PLUMBING, "org.springframework.web..", "org.springframework.http..",
					"jakarta.servlet..", "..profiles.failure..", "..profiles.consistency.."))
			.check(MAIN);
	}

	@Test
	void theHttpPlumbingReadsNoDatabaseFailure() {
		// SQLStates and Spring's data-access exceptions are read once, in
		// database.DatabaseFailures; the HTTP plumbing sees only what it made of them.
		noClasses().that()
			.resideInAnyPackage(HTTP_PLUMBING)
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("java.sql..", "javax.sql..", "org.springframework.dao..",
					"org.springframework.transaction..", "org.springframework.jdbc..", "jakarta.persistence..")
			.check(MAIN);
	}

	@Test
	void theFeaturesReachTheDatabaseOnlyThroughAService() {
		// DatabaseFailureTranslation wraps @Service beans: a failure met anywhere else
		// would reach the client as a 500 instead of a 503.
		noClasses().that()
			.resideInAnyPackage("..profiles.user..", "..profiles.auth..")
			.and()
			.areNotAnnotatedWith(Service.class)
			.and()
			.areNotAssignableTo(Repository.class)
			.and()
			.haveNameNotMatching(".*\\.ProfileQueries")
			.should()
			.dependOnClassesThat()
			.areAssignableTo(Repository.class)
			.orShould()
			.dependOnClassesThat()
			.haveSimpleName("ProfileQueries")
			.orShould()
			.dependOnClassesThat()
			.resideInAnyPackage("java.sql..", "javax.sql..", "org.springframework.jdbc..")
			.check(MAIN);
	}

	@Test
	void routingKnowsNoFeature() {
		noClasses().that()
			.resideInAPackage("..profiles.routing..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(plus(HTTP_PLUMBING, "..profiles.user..", "..profiles.auth..", "..profiles.seed..",
					"..profiles.failure..", "..profiles.consistency.."))
			.check(MAIN);
	}

	@Test
	void theDatabasePlumbingKnowsNoFeatureAndNoRouting() {
		// Pools and failures are below the policy that chooses among them.
		noClasses().that()
			.resideInAPackage("..profiles.database..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(plus(HTTP_PLUMBING, "..profiles.routing..", "..profiles.user..", "..profiles.auth..",
					"..profiles.seed..", "..profiles.failure..", "..profiles.consistency.."))
			.check(MAIN);
	}

	@Test
	void onlyRoutingChoosesANode() {
		// A feature reads through the router and the application's DataSource; a node's
		// pool in its hands would bypass every guarantee of the routing.
		noClasses().that()
			.resideOutsideOfPackages("..profiles.routing..", "..profiles.database..")
			.should()
			.dependOnClassesThat()
			.belongToAnyOf(NodePools.class)
			.orShould()
			.dependOnClassesThat()
			.resideInAPackage("com.zaxxer.hikari..")
			.check(MAIN);
	}

	@Test
	void theEmbeddedClusterIsNoPartOfTheProductionCode() {
		// It lives in src/test, run by LocalProfilesApplication: the production jar has
		// neither its classes nor its PostgreSQL binaries.
		noClasses().should()
			.resideInAPackage("..profiles.cluster..")
			.orShould()
			.dependOnClassesThat()
			.resideInAPackage("..profiles.cluster..")
			.check(MAIN);
	}

	@Test
	void controllersGoThroughAServiceNotToTheDatabase() {
		noClasses().that()
			.areAnnotatedWith(RestController.class)
			.should()
			.dependOnClassesThat()
			.areAssignableTo(Repository.class)
			.orShould()
			.dependOnClassesThat()
			.areAssignableTo(JdbcClient.class)
			.orShould()
			.dependOnClassesThat()
			.haveSimpleName("ProfileQueries")
			.check(MAIN);
	}

	private static String[] plus(String[] packages, String... more) {
		return Stream.concat(Arrays.stream(packages), Arrays.stream(more)).toArray(String[]::new);
	}

}
