#!/usr/bin/env python3
"""Checks deploy/k8s offline: renders the base and the pooler overlay with kustomize, validates every
document against the Kubernetes JSON schemas (kubernetes-validate, strict: unknown fields fail), and
runs the deployment's own rules, which no schema states: the quorum commit, pinned images, bounded and
probed containers, the security context, the PDB, the HPA, default-deny, the management port kept
private, secrets only as files and never committed.

    python3 deploy/k8s/check.py                # CI runs it (.ci/run)
    python3 deploy/k8s/check.py --self-test    # breaks the rendered manifests on purpose: each must fail
    python3 deploy/k8s/check.py --crds DIR     # Cluster and Pooler against the CRD YAML files in DIR
                                               # instead of the pinned release's (below)

Cluster and Pooler are validated against the CRDs of the CloudNativePG release the manifests are
written for (CNPG_VERSION), taken from the Go module proxy, the one registry these machines reach
that serves the operator's source: the module's zip, checked against its SHA-256 below, holds
config/crd/bases/ as the release tagged it. It is cached under target/k8s-check/.

Needs kubectl (its built-in kustomize) or kustomize. PyYAML and kubernetes-validate come from PyPI
into a virtualenv under target/k8s-check/ when the running Python lacks them. The secrets are
throw-away ones, made by make-secrets.sh in a copy of deploy/k8s under target/k8s-check/; nothing is
written into deploy/k8s. Nothing here talks to a cluster: what it proves is that the manifests
render, match the schemas and follow the rules below, not that they run (docs/deployment.md,
"On Kubernetes").

Prints each check as PASS or FAIL and `k8s check: N passed, M failed`; exit status 0 when none failed,
1 when one did, 2 when it could not run.
"""

import argparse
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WORK = ROOT / "target" / "k8s-check"
VENV = WORK / "venv"
REQUIREMENTS = ["PyYAML==6.0.3", "kubernetes-validate==1.37.0"]
# The Kubernetes version whose schemas the documents are held to: the oldest the manifests are
# written for (the preStop sleep action is on by default from 1.30; kubectl here is 1.32).
KUBERNETES_VERSION = "1.32"
# The renders: the base as `kubectl apply -k deploy/k8s` applies it, and with the pooler component.
RENDERS = {"base": ".", "pooler": "overlays/pooler"}
CLUSTER = "profiles-db"
# The operator release whose CRDs the Cluster and Pooler are held to, and its module zip on the Go
# module proxy (proxy.golang.org; origin: github.com/cloudnative-pg/cloudnative-pg, tag v1.30.0,
# commit 4b5e244a7d031f67e025c83c1555e7726ecbbfa1), 14,854,364 bytes.
CNPG_VERSION = "1.30.0"
CNPG_ZIP_URL = f"https://proxy.golang.org/github.com/cloudnative-pg/cloudnative-pg/@v/v{CNPG_VERSION}.zip"
CNPG_ZIP_SHA256 = "68fad0cf2253cc940f24fe38f358dd2ee5a25a8fbc7d5189bddfc23b3f55fb0d"
CNPG_CRDS = ("postgresql.cnpg.io_clusters.yaml", "postgresql.cnpg.io_poolers.yaml")
DEPLOYMENT = "profiles"
MANAGEMENT_PORT = 8081
# The files the service reads as properties (application.yml's configtree:/run/secrets/).
SECRET_FILES = {"Deployment": {"app.db.password", "app.auth.token-keys"},
                "Job": {"app.db.migration.password"}}
WORKLOADS = ("Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob")
LONG_RUNNING = ("Deployment", "StatefulSet", "DaemonSet")
CLUSTER_SCOPED = ("Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition",
                  "PriorityClass", "StorageClass")


def ensure_dependencies():
    """PyYAML and kubernetes-validate importable, or this script run again in a virtualenv that has them."""
    try:
        import yaml  # noqa: F401
        import kubernetes_validate  # noqa: F401
        return
    except ImportError:
        pass
    python = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        sys.exit("k8s check: the virtualenv under target/k8s-check/ lacks PyYAML or kubernetes-validate")
    if not python.exists():
        print(f"k8s check: installing {', '.join(REQUIREMENTS)} into {VENV.relative_to(ROOT)}", flush=True)
        venv.create(VENV, with_pip=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *REQUIREMENTS], check=True)
    os.execv(str(python), [str(python), str(Path(__file__).resolve()), *sys.argv[1:]])


# ---------------------------------------------------------------------------------------------
# Rendering


def kustomize_command():
    if shutil.which("kubectl"):
        return ["kubectl", "kustomize"]
    if shutil.which("kustomize"):
        return ["kustomize", "build"]
    sys.exit("k8s check: needs kubectl (with its built-in kustomize) or kustomize on the PATH")


def render_all():
    """{render name: [documents]} from a copy of deploy/k8s with throw-away secrets."""
    import yaml
    tree = WORK / "tree"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(HERE, tree, ignore=shutil.ignore_patterns("secrets", "__pycache__"))
    subprocess.run(["bash", str(tree / "make-secrets.sh")], check=True, stdout=subprocess.DEVNULL)
    renders = {}
    for name, path in RENDERS.items():
        result = subprocess.run([*kustomize_command(), str(tree / path)], capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"k8s check: kustomize failed for {name} ({path}):\n{result.stderr}")
        renders[name] = [d for d in yaml.safe_load_all(result.stdout) if d]
    return renders


def source_documents():
    """(file, document) for every YAML document committed under deploy/k8s."""
    import yaml
    found = []
    for path in sorted(HERE.rglob("*.yaml")):
        if "secrets" in path.relative_to(HERE).parts:
            continue
        for document in yaml.safe_load_all(path.read_text()):
            if document:
                found.append((str(path.relative_to(ROOT)), document))
    return found


# ---------------------------------------------------------------------------------------------
# Strict schema validation


def strict_schema(schema):
    """A CRD's openAPIV3Schema as strict JSON Schema: an object that lists its properties allows no
    others (what the API server's pruning, and kubectl's field validation, would refuse)."""
    schema = copy.deepcopy(schema)

    def walk(node):
        if isinstance(node, dict):
            if ("properties" in node and "additionalProperties" not in node
                    and not node.get("x-kubernetes-preserve-unknown-fields")):
                node["additionalProperties"] = False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    # metadata is the API server's ObjectMeta, which the CRD leaves open; kubernetes-validate
    # holds it to its schema in every built-in kind.
    schema.get("properties", {}).get("metadata", {}).pop("additionalProperties", None)
    return schema


def cnpg_crds():
    """The pinned release's Cluster and Pooler CRDs, fetched once into target/k8s-check/."""
    import hashlib
    import urllib.request
    import zipfile
    directory = WORK / f"cnpg-{CNPG_VERSION}-crds"
    if all((directory / name).is_file() for name in CNPG_CRDS):
        return directory
    archive = WORK / f"cnpg-{CNPG_VERSION}.zip"
    if not archive.is_file() or hashlib.sha256(archive.read_bytes()).hexdigest() != CNPG_ZIP_SHA256:
        print(f"k8s check: fetching the CloudNativePG {CNPG_VERSION} CRDs from {CNPG_ZIP_URL}")
        try:
            with urllib.request.urlopen(CNPG_ZIP_URL, timeout=120) as answer:
                archive.write_bytes(answer.read())
        except OSError as ex:
            print(f"k8s check: could not fetch {CNPG_ZIP_URL}: {ex}", file=sys.stderr)
            sys.exit(2)
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != CNPG_ZIP_SHA256:
        print(f"k8s check: {archive} has SHA-256 {digest}, expected {CNPG_ZIP_SHA256}", file=sys.stderr)
        sys.exit(2)
    directory.mkdir(parents=True, exist_ok=True)
    prefix = f"github.com/cloudnative-pg/cloudnative-pg@v{CNPG_VERSION}/config/crd/bases/"
    with zipfile.ZipFile(archive) as module:
        for name in CNPG_CRDS:
            (directory / name).write_bytes(module.read(prefix + name))
    return directory


def load_crd_schemas(directory):
    """{(apiVersion, kind): strict JSON Schema} from the CRD YAML files in directory."""
    import yaml
    schemas = {}
    for path in sorted(Path(directory).glob("*.y*ml")):
        for crd in yaml.safe_load_all(path.read_text()):
            if not crd or crd.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
            for version in crd["spec"]["versions"]:
                schemas[(f"{group}/{version['name']}", kind)] = strict_schema(
                    version["schema"]["openAPIV3Schema"])
    return schemas


def doc_name(document):
    return f"{document.get('kind')}/{document.get('metadata', {}).get('name')}"


def validate_schemas(docs, crd_schemas=None, version=KUBERNETES_VERSION):
    """Every document against its schema, strictly: the built-in kinds against the Kubernetes JSON
    schemas that kubernetes-validate ships, custom resources against crd_schemas when given.
    Returns [(document name, error)]; a document with no schema is an error too (a kind the
    deployment should not have, or CRDs not given: then Cluster and Pooler are left out and
    named in the second list)."""
    import jsonschema
    import kubernetes_validate
    errors, unchecked = [], []
    for document in docs:
        key = (document.get("apiVersion"), document.get("kind"))
        if crd_schemas is not None and key in crd_schemas:
            error = jsonschema.exceptions.best_match(
                jsonschema.Draft7Validator(crd_schemas[key]).iter_errors(document))
            if error is not None:
                errors.append((doc_name(document), f"{'.'.join(map(str, error.path))}: {error.message}"))
            continue
        if key[0] and key[0].startswith("postgresql.cnpg.io/"):
            unchecked.append(doc_name(document))
            continue
        try:
            kubernetes_validate.validate(document, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            errors.append((doc_name(document), f"{'.'.join(map(str, error.path))}: {error.message}"))
        except kubernetes_validate.SchemaNotFoundError as error:
            errors.append((doc_name(document), f"no schema: {error}"))
    return errors, unchecked


# ---------------------------------------------------------------------------------------------
# The deployment's rules


class Results:
    def __init__(self, quiet=False):
        self.passed, self.failed, self.quiet = [], [], quiet

    def check(self, name, ok, detail=""):
        (self.passed if ok else self.failed).append((name, detail))
        if not self.quiet:
            print(f"{'PASS' if ok else 'FAIL'} {name}" + ("" if ok or not detail else f": {detail}"))

    def failed_names(self):
        return {name for name, _ in self.failed}


def of_kind(docs, kind):
    return [d for d in docs if d.get("kind") == kind]


def pod_spec(document):
    spec = document.get("spec", {})
    if document["kind"] == "CronJob":
        spec = spec.get("jobTemplate", {}).get("spec", {})
    return spec.get("template", {}).get("spec", {})


def all_containers(spec):
    return [*spec.get("initContainers", []), *spec.get("containers", [])]


def images(docs):
    """(where, image) for every image the documents name."""
    found = []
    for document in docs:
        if document["kind"] in WORKLOADS:
            for container in all_containers(pod_spec(document)):
                found.append((f"{doc_name(document)} {container['name']}", container.get("image")))
        elif document["kind"] == "Cluster":
            found.append((doc_name(document), document["spec"].get("imageName")))
        elif document["kind"] == "Pooler":
            found.append((f"{doc_name(document)} pgbouncer.image",
                          document["spec"].get("pgbouncer", {}).get("image")))
            for container in all_containers(document["spec"].get("template", {}).get("spec", {})):
                if "image" in container:
                    found.append((f"{doc_name(document)} {container['name']}", container["image"]))
    return found


def image_pinned(image):
    """A tag that is not `latest`, or a digest."""
    if not image:
        return False
    if "@sha256:" in image:
        return True
    last = image.rsplit("/", 1)[-1]
    return ":" in last and last.rsplit(":", 1)[1] not in ("", "latest")


def bounded(container):
    resources = container.get("resources", {})
    return all(resources.get(part, {}).get(resource) for part in ("requests", "limits")
               for resource in ("cpu", "memory"))


def number(value):
    """An integer field as a number; anything else (a string where the schema wants a number) as -1,
    so that a rule fails on it instead of the check crashing (the schema check names it)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def selects(selector, labels):
    match = selector.get("matchLabels", {})
    return bool(match) and all(labels.get(k) == v for k, v in match.items())


def secret_values(docs):
    """Every decoded value of every rendered Secret's data (the throw-away ones of this run) but
    the basic-auth user names, which are in the environment on purpose."""
    import base64
    values = set()
    for secret in of_kind(docs, "Secret"):
        for key, value in secret.get("data", {}).items():
            if key != "username":
                values.add(base64.b64decode(value).decode(errors="replace"))
        values.update(v for k, v in secret.get("stringData", {}).items() if k != "username")
    return {v for v in values if len(v) >= 8}


def check_rendered(docs, render, results):
    def check(name, ok, detail=""):
        results.check(f"{render}: {name}", ok, detail)

    clusters = [c for c in of_kind(docs, "Cluster") if c["metadata"]["name"] == CLUSTER]
    check("one Cluster profiles-db", len(clusters) == 1, f"found {len(clusters)}")
    for cluster in clusters:
        spec = cluster["spec"]
        check("Cluster instances 3", spec.get("instances") == 3, f"instances {spec.get('instances')}")
        sync = spec.get("postgresql", {}).get("synchronous", {})
        check("Cluster synchronous any 1, dataDurability required",
              (sync.get("method"), sync.get("number"), sync.get("dataDurability")) == ("any", 1, "required"),
              json.dumps(sync))
        parameters = spec.get("postgresql", {}).get("parameters", {})
        check("Cluster synchronous_commit remote_apply",
              parameters.get("synchronous_commit") == "remote_apply",
              f"synchronous_commit {parameters.get('synchronous_commit')!r}")
        check("Cluster synchronous_standby_names left to the operator",
              "synchronous_standby_names" not in parameters)
        readiness = spec.get("probes", {}).get("readiness", {})
        check("Cluster readiness: streaming with a maximum lag",
              readiness.get("type") == "streaming" and readiness.get("maximumLag") not in (None, ""),
              json.dumps(readiness))
        affinity = spec.get("affinity", {})
        check("Cluster instances on separate nodes (required anti-affinity)",
              affinity.get("enablePodAntiAffinity") is True
              and affinity.get("podAntiAffinityType") == "required"
              and affinity.get("topologyKey") == "kubernetes.io/hostname", json.dumps(affinity))
        check("Cluster requests and limits cpu and memory", bounded(spec),
              json.dumps(spec.get("resources")))
        check("Cluster storage size set", bool(spec.get("storage", {}).get("size")))
        roles = {r.get("name"): r for r in spec.get("managed", {}).get("roles", [])}
        runtime = roles.get("profiles", {})
        check("Cluster runtime role profiles: login, password from a Secret",
              runtime.get("login") is True and bool(runtime.get("passwordSecret", {}).get("name")))
        initdb = spec.get("bootstrap", {}).get("initdb", {})
        check("Cluster initdb: database profiles owned by profiles_owner, password from a Secret",
              initdb.get("database") == "profiles" and initdb.get("owner") == "profiles_owner"
              and bool(initdb.get("secret", {}).get("name")))

    unpinned = [f"{where}: {image}" for where, image in images(docs) if not image_pinned(image)]
    check("every image pinned by a tag other than latest", not unpinned, "; ".join(unpinned))

    for document in docs:
        if document["kind"] not in WORKLOADS and document["kind"] != "Pooler":
            continue
        spec = (document["spec"].get("template", {}).get("spec", {}) if document["kind"] == "Pooler"
                else pod_spec(document))
        for container in all_containers(spec):
            where = f"{doc_name(document)} {container['name']}"
            check(f"{where}: requests and limits for cpu and memory", bounded(container),
                  json.dumps(container.get("resources")))
            if document["kind"] == "Pooler":
                continue  # the operator's container: its probes and security context are the operator's
            if document["kind"] in LONG_RUNNING:
                missing = [p for p in ("livenessProbe", "readinessProbe", "startupProbe") if p not in container]
                check(f"{where}: liveness, readiness and startup probes", not missing,
                      f"missing {', '.join(missing)}")
            context, pod_context = container.get("securityContext", {}), spec.get("securityContext", {})
            run_as_non_root = context.get("runAsNonRoot", pod_context.get("runAsNonRoot"))
            user = context.get("runAsUser", pod_context.get("runAsUser"))
            seccomp = context.get("seccompProfile", pod_context.get("seccompProfile", {}))
            problems = []
            if run_as_non_root is not True:
                problems.append("runAsNonRoot not true")
            if user in (None, 0):
                problems.append(f"runAsUser {user}")
            if context.get("allowPrivilegeEscalation") is not False:
                problems.append("allowPrivilegeEscalation not false")
            if context.get("readOnlyRootFilesystem") is not True:
                problems.append("readOnlyRootFilesystem not true")
            if "ALL" not in context.get("capabilities", {}).get("drop", []) or context.get("capabilities", {}).get("add"):
                problems.append("capabilities not drop ALL")
            if seccomp.get("type") != "RuntimeDefault":
                problems.append("seccompProfile not RuntimeDefault")
            if context.get("privileged"):
                problems.append("privileged")
            check(f"{where}: security context", not problems, ", ".join(problems))
            mounts = {m["mountPath"]: m["name"] for m in container.get("volumeMounts", [])}
            empty_dirs = {v["name"] for v in spec.get("volumes", []) if "emptyDir" in v}
            check(f"{where}: writable /tmp (emptyDir)", mounts.get("/tmp") in empty_dirs)

            values = secret_values(docs)
            words = " ".join(map(str, [*container.get("command", []), *container.get("args", [])]))
            leaked = [v for v in values if v in words]
            named = re.findall(r"(?i)(password|token-keys|secret)\S*=", words)
            check(f"{where}: no secret in command or args", not leaked and not named,
                  "a secret's value" if leaked else ", ".join(named))
            env_secrets = [e["name"] for e in container.get("env", [])
                           if "secretKeyRef" in e.get("valueFrom", {}) or e.get("value") in values]
            env_secrets += [f"envFrom {e['secretRef'].get('name')}" for e in container.get("envFrom", [])
                            if "secretRef" in e]
            check(f"{where}: secrets as files, not environment", not env_secrets, ", ".join(env_secrets))
            if document["kind"] in SECRET_FILES:
                files = set()
                for volume in spec.get("volumes", []):
                    if mounts.get("/run/secrets") != volume["name"]:
                        continue
                    sources = volume.get("projected", {}).get("sources", [])
                    if "secret" in volume:
                        sources = [{"secret": volume["secret"]}]
                    for source in sources:
                        files.update(i["path"] for i in source.get("secret", {}).get("items", []))
                expected = SECRET_FILES[document["kind"]]
                check(f"{where}: secret files under /run/secrets named after their properties",
                      expected <= files, f"has {sorted(files)}, needs {sorted(expected)}")

    deployments = [d for d in of_kind(docs, "Deployment") if d["metadata"]["name"] == DEPLOYMENT]
    check("one Deployment profiles", len(deployments) == 1, f"found {len(deployments)}")
    for deployment in deployments:
        spec = pod_spec(deployment)
        labels = deployment["spec"]["template"]["metadata"].get("labels", {})
        container = spec["containers"][0]
        env = {e["name"]: e.get("value") for e in container.get("env", [])}
        check("Deployment: replicas at least 2", number(deployment["spec"].get("replicas", 1)) >= 2)
        check("Deployment: validates the migrations as the runtime role, never applies them",
              env.get("APP_DB_MIGRATIONS") == "validate" and "APP_DB_MIGRATION_USERNAME" not in env)
        check("Deployment: management port on every address for the kubelet's probes",
              env.get("MANAGEMENT_SERVER_ADDRESS") == "0.0.0.0")
        startup = container.get("startupProbe", {})
        budget = (number(startup.get("initialDelaySeconds", 0))
                  + number(startup.get("periodSeconds", 10)) * number(startup.get("failureThreshold", 3)))
        check("Deployment: startup probe allows at least 120 s (a warm-up of up to 90 s after the start)",
              budget >= 120, f"{budget} s")
        ports = {p.get("name"): p["containerPort"] for p in container.get("ports", [])}
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            port = container.get(probe, {}).get("httpGet", {}).get("port")
            check(f"Deployment: {probe} on the management port",
                  ports.get(port, port) == MANAGEMENT_PORT, f"port {port}")
        pre_stop = container.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
        grace = spec.get("terminationGracePeriodSeconds", 30)
        check("Deployment: grace period covers the preStop sleep and Spring's 30 s shutdown phase",
              number(grace) >= number(pre_stop) + 30, f"{grace} s for {pre_stop} s + 30 s")
        check("Deployment: spread across nodes",
              bool(spec.get("topologySpreadConstraints") or spec.get("affinity", {}).get("podAntiAffinity")))
        account = spec.get("serviceAccountName")
        accounts = [a for a in of_kind(docs, "ServiceAccount") if a["metadata"]["name"] == account]
        check("Deployment: its ServiceAccount mounts no token",
              spec.get("automountServiceAccountToken") is False
              and all(a.get("automountServiceAccountToken") is False for a in accounts) and accounts)

        budgets = [p for p in of_kind(docs, "PodDisruptionBudget")
                   if selects(p["spec"].get("selector", {}), labels)]
        check("a PodDisruptionBudget selects the Deployment's pods",
              bool(budgets) and all(number(p["spec"].get("minAvailable", 0)) >= 1 for p in budgets),
              f"{len(budgets)} found")
        scalers = [h for h in of_kind(docs, "HorizontalPodAutoscaler")
                   if h["spec"].get("scaleTargetRef", {}).get("kind") == "Deployment"
                   and h["spec"]["scaleTargetRef"].get("name") == DEPLOYMENT]
        check("a HorizontalPodAutoscaler targets the Deployment, at least 2 pods",
              bool(scalers) and all(number(h["spec"].get("minReplicas", 1)) >= 2 for h in scalers),
              f"{len(scalers)} found")

    jobs = [j for j in of_kind(docs, "Job") if j["metadata"]["name"] == "profiles-migrate"]
    check("a migrations Job that runs --app.migrate as the owner",
              len(jobs) == 1 and "--app.migrate" in pod_spec(jobs[0])["containers"][0].get("args", [])
              and {"name": "APP_DB_MIGRATION_USERNAME", "value": "profiles_owner"}
              in pod_spec(jobs[0])["containers"][0].get("env", []))
    check("the migrations Job is bounded (backoffLimit, ttlSecondsAfterFinished)",
          all("backoffLimit" in j["spec"] and "ttlSecondsAfterFinished" in j["spec"] for j in jobs) and jobs)

    denies = [p for p in of_kind(docs, "NetworkPolicy")
              if p["spec"].get("podSelector") == {}
              and set(p["spec"].get("policyTypes", [])) == {"Ingress", "Egress"}
              and not p["spec"].get("ingress") and not p["spec"].get("egress")]
    check("a default-deny NetworkPolicy: every pod, ingress and egress", bool(denies))

    exposed = []
    for service in of_kind(docs, "Service"):
        for port in service["spec"].get("ports", []):
            if MANAGEMENT_PORT in (port.get("port"), port.get("targetPort")) or port.get("targetPort") == "management":
                exposed.append(f"{doc_name(service)} ({service['spec'].get('type', 'ClusterIP')})")
    check("no Service exposes the management port 8081", not exposed, ", ".join(exposed))
    public = [doc_name(s) for s in of_kind(docs, "Service")
              if s["spec"].get("type") in ("NodePort", "LoadBalancer")]
    check("no Service of type NodePort or LoadBalancer (exposure is the cluster owner's choice)",
          not public, ", ".join(public))

    secrets = {s["metadata"]["name"] for s in of_kind(docs, "Secret")}
    references = []
    for document in docs:
        spec = pod_spec(document) if document["kind"] in WORKLOADS else {}
        for volume in spec.get("volumes", []):
            if "secret" in volume:
                references.append((doc_name(document), volume["secret"].get("secretName")))
            for source in volume.get("projected", {}).get("sources", []):
                if "secret" in source:
                    references.append((doc_name(document), source["secret"].get("name")))
        if document["kind"] == "Cluster":
            references.append((doc_name(document),
                               document["spec"].get("bootstrap", {}).get("initdb", {}).get("secret", {}).get("name")))
            for role in document["spec"].get("managed", {}).get("roles", []):
                if "passwordSecret" in role:
                    references.append((doc_name(document), role["passwordSecret"].get("name")))
    dangling = [f"{where} -> {name}" for where, name in references if name not in secrets]
    check("every Secret named is rendered (kustomize wrote the generated names)", not dangling,
          "; ".join(dangling))

    loose = [doc_name(d) for d in docs
             if d["kind"] not in CLUSTER_SCOPED and d.get("metadata", {}).get("namespace") != "profiles"]
    check("every namespaced resource in namespace profiles", not loose, ", ".join(loose))


def check_sources(sources, results):
    committed = [f"{file}: {doc_name(d)}" for file, d in sources
                 if d.get("kind") == "Secret" and (d.get("data") or d.get("stringData"))]
    generated = []
    for file, document in sources:
        for generator in document.get("secretGenerator", []) if document.get("kind") == "Kustomization" else []:
            for literal in generator.get("literals", []):
                if literal.split("=", 1)[0] != "username":
                    generated.append(f"{file}: {generator['name']} literal {literal.split('=', 1)[0]}")
    results.check("sources: no Secret with literal data committed", not committed and not generated,
                  "; ".join(committed + generated))


def run_checks(renders, sources, crd_schemas, results):
    check_sources(sources, results)
    for render, docs in renders.items():
        errors, unchecked = validate_schemas(docs, crd_schemas)
        for name, error in errors:
            results.check(f"{render}: schema {name}", False, error)
        results.check(f"{render}: {len(docs) - len(unchecked)} documents valid against their schemas "
                      f"(Kubernetes {KUBERNETES_VERSION}, strict)", not errors, f"{len(errors)} invalid")
        if unchecked and not results.quiet:
            print(f"  ({render}: not schema-checked, no CRDs given: {', '.join(unchecked)})")
        check_rendered(docs, render, results)


# ---------------------------------------------------------------------------------------------
# Self-test: each breakage must fail the check


def find(docs, kind, name=None):
    return next(d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name))


def container(docs, kind="Deployment", name=DEPLOYMENT):
    return pod_spec(find(docs, kind, name))["containers"][0]


def breakages(crds=False):
    """(description, render, mutation of the rendered documents or of the sources); with crds, also
    breakages that only the CloudNativePG CRDs' schemas catch."""
    def cluster(docs):
        return find(docs, "Cluster")["spec"]

    def remove_default_deny(docs):
        docs[:] = [d for d in docs if not (d["kind"] == "NetworkPolicy" and d["metadata"]["name"] == "default-deny")]

    def commit_secret(sources):
        sources.append(("deploy/k8s/base/secret.yaml", {"apiVersion": "v1", "kind": "Secret",
                                                         "metadata": {"name": "leaked"},
                                                         "stringData": {"password": "hunter2hunter2"}}))

    def password_in_args(docs):
        value = next(iter(secret_values(docs)))
        container(docs)["args"] = [f"--app.db.password={value}"]

    by_crd = [
        ("a misspelt Cluster field, maxLag (CRD schema)", "base",
         lambda d: cluster(d)["probes"]["readiness"].update(maxLag="1Mi")),
        ("the Pooler in statement mode (CRD schema)", "pooler",
         lambda d: find(d, "Pooler")["spec"]["pgbouncer"].update(poolMode="statement")),
    ] if crds else []
    return by_crd + [
        ("Cluster instances 2", "base", lambda d: cluster(d).update(instances=2)),
        ("dataDurability preferred", "base",
         lambda d: cluster(d)["postgresql"]["synchronous"].update(dataDurability="preferred")),
        ("synchronous method first", "base",
         lambda d: cluster(d)["postgresql"]["synchronous"].update(method="first")),
        ("synchronous_commit on", "base",
         lambda d: cluster(d)["postgresql"]["parameters"].update(synchronous_commit="on")),
        ("readiness probe without maximumLag", "base",
         lambda d: cluster(d)["probes"]["readiness"].pop("maximumLag")),
        ("the service's image :latest", "base", lambda d: container(d).update(image="user-profiles:latest")),
        ("the Job's image untagged", "base",
         lambda d: container(d, "Job", "profiles-migrate").update(image="user-profiles")),
        ("the Cluster's imageName :latest", "base",
         lambda d: cluster(d).update(imageName="ghcr.io/cloudnative-pg/postgresql:latest")),
        ("the Pooler's image untagged", "pooler",
         lambda d: find(d, "Pooler")["spec"]["pgbouncer"].update(image="ghcr.io/cloudnative-pg/pgbouncer")),
        ("a container without limits", "base", lambda d: container(d)["resources"].pop("limits")),
        ("the Pooler's container without requests", "pooler",
         lambda d: find(d, "Pooler")["spec"]["template"]["spec"]["containers"][0]["resources"].pop("requests")),
        ("the service without a startup probe", "base", lambda d: container(d).pop("startupProbe")),
        ("the service with a 60 s startup budget", "base",
         lambda d: container(d)["startupProbe"].update(failureThreshold=12)),
        ("the service running as root", "base",
         lambda d: container(d)["securityContext"].update(runAsUser=0)),
        ("privilege escalation allowed in the Job", "base",
         lambda d: container(d, "Job", "profiles-migrate")["securityContext"].update(allowPrivilegeEscalation=True)),
        ("a writable root file system", "base",
         lambda d: container(d)["securityContext"].update(readOnlyRootFilesystem=False)),
        ("default-deny removed", "base", remove_default_deny),
        ("default-deny for ingress only", "base",
         lambda d: find(d, "NetworkPolicy", "default-deny")["spec"].update(policyTypes=["Ingress"])),
        ("the management port in the Service", "base",
         lambda d: find(d, "Service", "profiles")["spec"]["ports"].append(
             {"name": "management", "port": 8081, "targetPort": "management"})),
        ("the PodDisruptionBudget selecting other pods", "base",
         lambda d: find(d, "PodDisruptionBudget")["spec"]["selector"]["matchLabels"].update(
             {"app.kubernetes.io/component": "other"})),
        ("the HorizontalPodAutoscaler targeting another Deployment", "base",
         lambda d: find(d, "HorizontalPodAutoscaler")["spec"]["scaleTargetRef"].update(name="other")),
        ("a password in the service's args", "base", password_in_args),
        ("a password in the environment from a Secret", "base",
         lambda d: container(d)["env"].append({"name": "APP_DB_PASSWORD", "valueFrom": {
             "secretKeyRef": {"name": find(d, "Secret")["metadata"]["name"], "key": "password"}}})),
        ("the service applying migrations", "base",
         lambda d: next(e for e in container(d)["env"] if e["name"] == "APP_DB_MIGRATIONS").update(value="apply")),
        ("the Cluster naming a Secret that is not rendered", "base",
         lambda d: cluster(d)["managed"]["roles"][0]["passwordSecret"].update(name="profiles-db-app")),
        ("a Secret with literal data committed", "sources", commit_secret),
        ("the Deployment's replicas a string (schema)", "base",
         lambda d: find(d, "Deployment")["spec"].update(replicas="two")),
        ("an unknown field in a container (strict schema)", "base",
         lambda d: container(d).update(resource={"limits": {"cpu": "1"}})),
    ]


def self_test(renders, sources, crd_schemas):
    baseline = Results(quiet=True)
    run_checks(renders, sources, crd_schemas, baseline)
    if baseline.failed:
        print("self-test: the unbroken manifests fail already:")
        for name, detail in baseline.failed:
            print(f"  FAIL {name}: {detail}")
        return 1
    missed = 0
    cases = breakages(crds=crd_schemas is not None)
    for description, target, mutate in cases:
        broken_renders, broken_sources = copy.deepcopy(renders), copy.deepcopy(sources)
        mutate(broken_sources if target == "sources" else broken_renders[target])
        results = Results(quiet=True)
        run_checks(broken_renders, broken_sources, crd_schemas, results)
        if results.failed:
            caught = "; ".join(name for name, _ in results.failed)
            print(f"broke: {description} -> check failed ({len(results.failed)} failing: {caught})")
        else:
            missed += 1
            print(f"broke: {description} -> NOT CAUGHT: every check passed")
    total = len(cases)
    print(f"k8s check self-test: {total - missed} of {total} breakages caught")
    return 1 if missed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--self-test", action="store_true",
                        help="break the rendered manifests on purpose and assert that each breakage fails")
    parser.add_argument("--crds", metavar="DIR",
                        help="CloudNativePG CRD YAML files to validate Cluster and Pooler against, instead of "
                             f"release {CNPG_VERSION}'s from the Go module proxy")
    args = parser.parse_args()
    ensure_dependencies()
    WORK.mkdir(parents=True, exist_ok=True)
    crd_schemas = load_crd_schemas(args.crds or cnpg_crds())
    renders, sources = render_all(), source_documents()
    for name, docs in renders.items():
        print(f"rendered {name} ({RENDERS[name]}): {len(docs)} documents")
    if args.self_test:
        return self_test(renders, sources, crd_schemas)
    results = Results()
    run_checks(renders, sources, crd_schemas, results)
    print(f"k8s check: {len(results.passed)} passed, {len(results.failed)} failed")
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
