"""``kubernetes``: the Kubernetes manifests that grade a class as an Indexed Job and merge the shards.

Two Jobs, printed as one YAML stream for ``kubectl apply -f``:

- ``<name>-shards``: ``completionMode: Indexed``, ``completions: N``; the pod with index K runs
  ``grade /submissions --shard K/N --out /results/shard-K``, K taken from ``JOB_COMPLETION_INDEX``.
  Submissions and the course are mounted read-only, results on a writable volume (shared by every
  pod: ReadWriteMany), ``/tmp`` on an emptyDir;
- ``<name>-merge``: ``merge /results/shard-0 ... --out /results/class --wait ...``: it waits on the
  results volume until every shard has finished, then merges (or names the shards that did not).

The grader's sandbox is bubblewrap, which needs user namespaces inside the pod: the pod runs as an
unprivileged user, with no capabilities, but with seccomp and AppArmor profiles that allow creating
namespaces and mounting /proc in them (see docs/grading-at-scale.md for what the cluster must allow).
Kubernetes cannot run on the machines this kit is tested on: the test checks the manifests' fields,
not a cluster.

The manifests are built as dicts and written by PyYAML (block style, keys in the order Kubernetes' own
examples use).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

import yaml

from . import cluster

SUBMISSIONS = "/submissions"
COURSE = "/course"
RESULTS = "/results"
CLASS_RESULTS = f"{RESULTS}/class"
USER = 1000  # the pod's user (any unprivileged uid works; the sandbox maps it to 65534 inside)
MERGE_WAIT_S = 24 * 3600  # then the merge names the shards that have not finished


@dataclass
class KubernetesRun:
    shards: int
    image: str
    name: str = "autograde"
    namespace: str | None = None
    parallelism: int | None = None          # pods at once (default: every shard)
    gpu: bool = False
    jobs: int = 1                           # grade --jobs in each pod
    threads: int = 1
    memory_per_job_gib: float = cluster.MEMORY_PER_JOB_MB / 1024   # requested per grade job (cluster.py says why)
    submissions_claim: str = "submissions"
    course_claim: str = "course"
    results_claim: str = "results"
    data_claim: str | None = None           # MNIST / Fashion-MNIST files, read-only (else: none mounted)
    python: str = "python"
    grading: list[str] = field(default_factory=list)
    retries_per_shard: int = 2
    merge_wait_s: float = MERGE_WAIT_S

    def metadata(self, suffix: str) -> dict:
        meta = {"name": f"{self.name}-{suffix}", "labels": {"app.kubernetes.io/name": "autograder",
                                                             "autograder/class": self.name}}
        if self.namespace:
            meta["namespace"] = self.namespace
        return meta

    def pod_security(self) -> dict:
        return {"runAsUser": USER, "runAsGroup": USER, "runAsNonRoot": True, "fsGroup": USER,
                "seccompProfile": {"type": "Unconfined"}}

    def container_security(self) -> dict:
        return {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}, "readOnlyRootFilesystem": True,
                "procMount": "Unmasked", "appArmorProfile": {"type": "Unconfined"}}

    def env(self) -> list[dict]:
        env = [{"name": "COURSE_ROOT", "value": COURSE}, {"name": "HOME", "value": "/tmp"},
               {"name": "MPLBACKEND", "value": "Agg"}]
        if self.data_claim:
            env += [{"name": "COURSEKIT_MNIST_DIR", "value": "/data/mnist"},
                    {"name": "COURSEKIT_FASHION_MNIST_DIR", "value": "/data/fashion-mnist"}]
        return env

    def resources(self) -> dict:
        memory = f"{self.memory_per_job_gib * self.jobs:g}Gi"
        requests = {"cpu": str(self.jobs * self.threads), "memory": memory}
        limits = {"memory": f"{self.memory_per_job_gib * self.jobs + 1:g}Gi"}
        if self.gpu:
            limits["nvidia.com/gpu"] = 1
        return {"requests": requests, "limits": limits}

    def volumes(self, *, grading: bool) -> tuple[list[dict], list[dict]]:
        """(volumes, volumeMounts) of a shard's pod (``grading``) or of the merge's."""
        volumes = [{"name": "results", "persistentVolumeClaim": {"claimName": self.results_claim}},
                   {"name": "scratch", "emptyDir": {}}]
        mounts = [{"name": "results", "mountPath": RESULTS}, {"name": "scratch", "mountPath": "/tmp"}]
        if grading:
            read_only = [("submissions", self.submissions_claim, SUBMISSIONS), ("course", self.course_claim, COURSE)]
            if self.data_claim:
                read_only.append(("data", self.data_claim, "/data"))
            for name, claim, path in read_only:
                volumes.append({"name": name, "persistentVolumeClaim": {"claimName": claim, "readOnly": True}})
                mounts.append({"name": name, "mountPath": path, "readOnly": True})
        return volumes, mounts

    def shards_job(self) -> dict:
        command = cluster.shard_command(self.python, SUBMISSIONS, RESULTS, "JOB_COMPLETION_INDEX", self.shards,
                                        "gpu" if self.gpu else "cpu", self.jobs, self.grading)
        volumes, mounts = self.volumes(grading=True)
        index = {"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
            "fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}
        container = {"name": "grade", "image": self.image, "command": ["/bin/sh", "-c", command],
                     "workingDir": COURSE, "env": [index, *self.env()], "resources": self.resources(),
                     "securityContext": self.container_security(), "volumeMounts": mounts}
        return {"apiVersion": "batch/v1", "kind": "Job", "metadata": self.metadata("shards"),
                "spec": {"completionMode": "Indexed", "completions": self.shards,
                         "parallelism": self.parallelism or self.shards,
                         "backoffLimit": self.retries_per_shard * self.shards,
                         "template": {"metadata": {"labels": {"autograder/class": self.name}},
                                      "spec": {"restartPolicy": "Never", "hostUsers": False,
                                               "securityContext": self.pod_security(),
                                               "containers": [container], "volumes": volumes}}}}

    def merge_job(self) -> dict:
        merge = [self.python, "-m", "autograder", "merge", *cluster.merge_arguments(RESULTS, self.shards),
                 "--out", CLASS_RESULTS, "--wait", f"{self.merge_wait_s:g}"]
        command = cluster.succeeds_when_graded(shlex.join(merge))
        volumes, mounts = self.volumes(grading=False)
        container = {"name": "merge", "image": self.image, "command": ["/bin/sh", "-c", command],
                     "env": [{"name": "HOME", "value": "/tmp"}],
                     "resources": {"requests": {"cpu": "100m", "memory": "512Mi"}, "limits": {"memory": "2Gi"}},
                     "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]},
                                         "readOnlyRootFilesystem": True},
                     "volumeMounts": mounts}
        return {"apiVersion": "batch/v1", "kind": "Job", "metadata": self.metadata("merge"),
                "spec": {"backoffLimit": 1,
                         "template": {"metadata": {"labels": {"autograder/class": self.name}},
                                      "spec": {"restartPolicy": "Never",
                                               "securityContext": {"runAsUser": USER, "runAsGroup": USER,
                                                                   "runAsNonRoot": True, "fsGroup": USER},
                                               "containers": [container], "volumes": volumes}}}}

    def render(self) -> str:
        head = (f"# Written by `python -m autograder kubernetes`: grades {SUBMISSIONS} in {self.shards} shard(s) "
                f"and merges them into {CLASS_RESULTS}.\n# Apply with: kubectl apply -f THIS_FILE "
                "(see docs/grading-at-scale.md)\n")
        return head + yaml.safe_dump_all([self.shards_job(), self.merge_job()], explicit_start=True, sort_keys=False,
                                          allow_unicode=True, width=1 << 16)   # one line per command, never folded


def from_args(args, grading: list[str]) -> KubernetesRun:
    if args.shards < 1:
        raise SystemExit("--shards must be at least 1")
    return KubernetesRun(args.shards, args.image, name=args.name, namespace=args.namespace, parallelism=args.parallelism,
                         gpu=args.gpu, jobs=args.jobs, threads=args.threads, submissions_claim=args.submissions_claim,
                         course_claim=args.course_claim, results_claim=args.results_claim, data_claim=args.data_claim,
                         merge_wait_s=args.merge_wait, grading=grading)
