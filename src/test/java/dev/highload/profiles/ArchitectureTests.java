package dev.highload.profiles;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import org.springframework.data.repository.Repository;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.RestController;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The package dependencies as they are meant to be: features on top (user, auth, seed),
 * cross-cutting HTTP concerns (web) and database plumbing (routing, cluster) underneath,
 * depending on no feature.
 */
class ArchitectureTests {

	private static final JavaClasses MAIN = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("dev.highload.profiles");

	@Test
	void theFeaturePackagesHaveNoCycles() {
		slices().matching("dev.highload.profiles.(*)..").should().beFreeOfCycles().check(MAIN);
	}

	@Test
	void theWebLayerMapsOnlyTheServicesOwnExceptionsAndKnowsNoFeature() {
		noClasses().that()
			.resideInAPackage("..profiles.web..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("..profiles.user..", "..profiles.auth..", "..profiles.seed..", "..profiles.routing..",
					"..profiles.cluster..")
			.check(MAIN);
	}

	@Test
	void theDatabasePlumbingKnowsNoFeature() {
		noClasses().that()
			.resideInAnyPackage("..profiles.routing..", "..profiles.cluster..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("..profiles.user..", "..profiles.auth..", "..profiles.seed..", "..profiles.web..")
			.check(MAIN);
	}

	@Test
	void onlyTheApplicationClassKnowsTheEmbeddedCluster() {
		noClasses().that()
			.resideOutsideOfPackage("..profiles.cluster..")
			.and()
			.doNotBelongToAnyOf(ProfilesApplication.class)
			.should()
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

}
