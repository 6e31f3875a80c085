"""The Kubernetes manifests `python -m autograder kubernetes` renders: valid YAML naming what the grader needs.

Kubernetes cannot run on the machines this kit is tested on, so this checks the manifests' fields;
docs/grading-at-scale.md says what a cluster must allow.
"""

from __future__ import annotations

import shlex

import yaml

from autograder import cli


def render(capsys, *options: str) -> list[dict]:
    assert cli.main(["kubernetes", "--shards", "4", "--image", "registry.example/course-grader:1", *options]) == 0
    text = capsys.readouterr().out
    return [doc for doc in yaml.safe_load_all(text) if doc is not None]


def shard_job(docs: list[dict]) -> dict:
    [job] = [d for d in docs if d["metadata"]["name"].endswith("-shards")]
    return job


def merge_job(docs: list[dict]) -> dict:
    [job] = [d for d in docs if d["metadata"]["name"].endswith("-merge")]
    return job


def test_the_shards_are_an_indexed_job_whose_index_picks_the_shard(capsys):
    job = shard_job(render(capsys, "--parallelism", "2"))
    assert job["apiVersion"] == "batch/v1" and job["kind"] == "Job"
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    assert spec["completions"] == 4 and spec["parallelism"] == 2
    pod = spec["template"]["spec"]
    assert pod["restartPolicy"] == "Never"
    [container] = pod["containers"]
    assert container["image"] == "registry.example/course-grader:1"
    env = {e["name"]: e for e in container["env"]}
    assert "batch.kubernetes.io/job-completion-index" in env["JOB_COMPLETION_INDEX"]["valueFrom"]["fieldRef"]["fieldPath"]
    assert env["COURSE_ROOT"]["value"] == "/course"
    command = container["command"]
    assert command[:2] == ["/bin/sh", "-c"]
    words = shlex.split(command[2].split(";")[0])
    assert words[1:5] == ["-m", "autograder", "grade", "/submissions"]
    assert words[words.index("--shard") + 1] == "$JOB_COMPLETION_INDEX/4"
    assert words[words.index("--out") + 1] == "/results/shard-$JOB_COMPLETION_INDEX"
    assert words[words.index("--runner") + 1] == "cpu"
    assert "status -eq 3" in command[2], "a shard that graded everything (some rows with problems) must succeed"


def test_volumes_submissions_and_course_read_only_results_writable(capsys):
    pod = shard_job(render(capsys, "--submissions-claim", "subs", "--results-claim", "res"))["spec"]["template"]["spec"]
    [container] = pod["containers"]
    mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
    assert mounts["/submissions"]["readOnly"] is True and mounts["/course"]["readOnly"] is True
    assert not mounts["/results"].get("readOnly") and not mounts["/tmp"].get("readOnly")
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes[mounts["/submissions"]["name"]]["persistentVolumeClaim"] == {"claimName": "subs", "readOnly": True}
    assert volumes[mounts["/results"]["name"]]["persistentVolumeClaim"]["claimName"] == "res"
    assert "emptyDir" in volumes[mounts["/tmp"]["name"]]


def test_resources_and_a_security_context_for_bubblewrap(capsys):
    pod = shard_job(render(capsys, "--jobs", "2"))["spec"]["template"]["spec"]
    [container] = pod["containers"]
    assert container["resources"]["requests"]["cpu"] == "2"
    assert container["resources"]["requests"]["memory"].endswith("Gi")
    assert "memory" in container["resources"]["limits"]
    assert "--jobs 2" in container["command"][2]
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0
    assert pod["securityContext"]["seccompProfile"]["type"] == "Unconfined"  # bwrap creates namespaces
    assert pod["hostUsers"] is False
    security = container["securityContext"]
    assert security["allowPrivilegeEscalation"] is False and security["capabilities"]["drop"] == ["ALL"]
    assert security["procMount"] == "Unmasked" and security["appArmorProfile"]["type"] == "Unconfined"
    assert "privileged" not in security


def test_gpu_asks_for_a_gpu_and_the_gpu_runner(capsys):
    [container] = shard_job(render(capsys, "--gpu"))["spec"]["template"]["spec"]["containers"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 1
    assert "--runner gpu" in container["command"][2]


def test_grading_options_reach_every_shard(capsys):
    [container] = shard_job(render(capsys, "--assignment", "01_tensors", "--timeout", "900"))["spec"]["template"]["spec"]["containers"]
    assert "--assignment 01_tensors" in container["command"][2] and "--timeout 900" in container["command"][2]


def test_the_merge_job_waits_for_every_shard_and_writes_the_class(capsys):
    job = merge_job(render(capsys, "--namespace", "course"))
    assert job["metadata"]["namespace"] == "course"
    [container] = job["spec"]["template"]["spec"]["containers"]
    words = shlex.split(container["command"][2].split(";")[0])
    assert words[1:4] == ["-m", "autograder", "merge"]
    assert [w for w in words if w.startswith("/results/shard-")] == [f"/results/shard-{k}" for k in range(4)]
    assert words[words.index("--out") + 1] == "/results/class"
    assert float(words[words.index("--wait") + 1]) > 0
    assert {m["mountPath"] for m in container["volumeMounts"]} >= {"/results"}


def test_the_kubernetes_alias_and_the_module_docstring(capsys):
    assert cli.main(["k8s", "--shards", "1", "--image", "x"]) == 0
    assert "completionMode" in capsys.readouterr().out
