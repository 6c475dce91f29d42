#!/usr/bin/env python3
"""CPU milliseconds a job by stage of a turn, from a profile of a node that a
benchmark took (PERF=FILE ./dw bench pipeline|concurrency: perf record -e
cpu-clock with DWARF call graphs), and the node's CPU time a job the benchmark
printed:

    bench/perf-stages.py /tmp/pipeline.perf.sqlite-1 11.8

Each sample goes to the innermost stage on its call stack (a site map built by
the branch story counts as "site map", the rest of the story as "branch
story"), so the stages add up to the whole; samples in no stage are "other"."""
import re
import subprocess
import sys

STAGES = [  # (name, pattern of a frame's function), innermost wins
    ("site map and write policy", r"docwright::docs::(BuildSiteMap|SharedSiteMap)\b"),
    ("checks", r"docwright::docs::CheckChanges\b"),
    ("claim", r"docwright::sql::SqlStore::ClaimTurn\b"),
    ("fetch", r"docwright::git::Mirror::FetchBranches\b"),
    ("snapshot", r"docwright::git::Mirror::OpenSnapshot\b"),
    ("context repositories", r"docwright::RepositoryTurns::ReadContext\b"),
    ("system prompt", r"docwright::agent::.*(SystemPromptFor|FirstRequest)\b"),
    ("model round trips (request, reply, parse)", r"docwright::llm::"),
    ("tools", r"docwright::agent::.*CarryOutToolCalls\b"),
    ("commit", r"docwright::git::Mirror::Commit\b"),
    ("push", r"docwright::git::Mirror::Push\b"),
    ("pull request", r"docwright::RepositoryTurns::OpenPullRequest\b"),
    ("branch story (diff, review)", r"docwright::RepositoryTurns::TellStory\b"),
    ("steps recorded", r"docwright::sql::SqlStore::RecordStep\b"),
    ("outcome recorded", r"docwright::Runner::Impl::Record\b"),
    ("lease renewals", r"docwright::Runner::Impl::(Renew|HeartbeatLoop)\b"),
    ("HTTP API (creates, polls)", r"docwright::(Api::Handle|HttpConnection)\b"),
    ("webhook delivery workers", r"docwright::events::DeliveryWorkers\b"),
    ("rest of the turn", r"docwright::RepositoryTurns::RunTurn\b|docwright::agent::ModelAgent::Run\b"),
]
compiled = [(name, re.compile(p)) for name, p in STAGES]
data, per_job = sys.argv[1], float(sys.argv[2])
out = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"], capture_output=True,
                     text=True, errors="replace").stdout
counts = {name: 0 for name, _ in STAGES}
counts["other"] = 0
total = 0
for sample in out.split("\n\n"):
    frames = [line.strip() for line in sample.splitlines() if line.strip()]
    if not frames:
        continue
    total += 1
    stage = "other"
    for frame in frames:  # innermost first
        hit = next((name for name, rx in compiled if rx.search(frame)), None)
        if hit:
            stage = hit
            break
    counts[stage] += 1
print(f"{'stage':44} {'share':>7} {'ms a job':>9}")
for name in [n for n, _ in STAGES] + ["other"]:
    share = counts[name] / total if total else 0
    print(f"{name:44} {share * 100:6.1f}% {share * per_job:9.2f}")
print(f"{'(all, ' + str(total) + ' samples)':44} {100:6.1f}% {per_job:9.2f}")
