package dev.highload.profiles;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.ContextConfiguration;

/**
 * A full-stack test on a random port against a real cluster: the embedded one, or with
 * {@code -Dit.cluster=testcontainers} the compose deployment's PostgreSQL in containers
 * ({@link TestCluster}). Every class with this annotation shares one application context,
 * so the test JVM starts one cluster. Tests reach the nodes through {@link ClusterNodes}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("test")
@ExtendWith(TestCluster.Condition.class)
@ContextConfiguration(initializers = TestCluster.Initializer.class)
@Import(TestCluster.NodesConfiguration.class)
public @interface IntegrationTest {

}
