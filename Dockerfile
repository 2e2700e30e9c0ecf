# The service's image: built with the Maven wrapper in a JDK image, run on a JRE image as
# an unprivileged user. It holds no password or key: the compose files hand them over as files
# under /run/secrets (Compose secrets, read through application.yml's configtree import);
# environment variables (APP_DB_PASSWORD, APP_AUTH_TOKEN_KEYS, ...) work as well.

# The official Temurin images by default; docker/local-images.env names stand-ins built from
# Debian's packages (docker/local-images.sh) for machines that reach no registry.
ARG JDK_IMAGE=eclipse-temurin:17-jdk-noble
ARG JRE_IMAGE=eclipse-temurin:17-jre-noble

FROM ${JDK_IMAGE} AS build
WORKDIR /build
# Dependencies first, in a layer of their own that a source change does not invalidate (the load
# simulations' test-scoped Gatling among them: it stays in this build stage, out of the jar).
COPY .mvn/ .mvn/
COPY mvnw pom.xml ./
RUN ./mvnw -B -ntp -q dependency:go-offline
COPY src/main/ src/main/
COPY db/migration/ db/migration/
COPY db/queries/ db/queries/
# The tests run in ./mvnw verify, on a real cluster, not in an image build. The one jar holds the
# service alone: the embedded cluster is development tooling in src/test, and the jar needs no
# cluster setting.
RUN ./mvnw -B -ntp -q package -Dmaven.test.skip=true -Dspring-javaformat.validate.skip=true \
	&& cp target/user-profiles-*.jar /build/user-profiles.jar

FROM ${JRE_IMAGE}
RUN groupadd --system --gid 10001 app \
	&& useradd --system --uid 10001 --gid app --home-dir /app --no-create-home --shell /usr/sbin/nologin app
WORKDIR /app
COPY --from=build /build/user-profiles.jar /app/user-profiles.jar
USER 10001:10001
# 8080 the API, 8081 the Actuator and the API documentation (management port).
EXPOSE 8080 8081
# bash's /dev/tcp instead of curl or wget: the JRE image need not ship either. Every 30 s, Docker's
# default: each check is a process started in the container (docker-compose.yml's header).
HEALTHCHECK --interval=30s --timeout=3s --start-period=90s --retries=3 \
	CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${MANAGEMENT_SERVER_PORT:-8081} && printf 'GET /actuator/health/readiness HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
# The heap follows the container's memory limit; an OutOfMemoryError ends the JVM, so that
# Docker restarts it instead of leaving it half-alive. The collector is named: under a memory limit
# below 1792 MB the JVM's ergonomics take the machine for a small one and choose the serial
# collector, whose stop-the-world pauses reached 221 ms under the 250,000-user simulation (p99
# 1,311 ms, users piling up); G1, which the local run gets by default, is what was measured
# (docs/reports/load-testing.md). Add flags with JAVA_TOOL_OPTIONS.
# The jar's name is what the Gatling CPU sampler looks for on the command line.
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError", "-jar", "/app/user-profiles.jar"]
