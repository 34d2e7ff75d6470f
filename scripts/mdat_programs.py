"""mdat_programs: the built target and example programs that the benchmark
and trace-compare scripts run mdat on (imported by them, not run).

every_program(build) lists (name, path) for each ELF under tests/targets
(apart from the few that need arguments or never end) and each example."""
import os

# Targets that need arguments, wait for ever or exist to fail to start;
# attach_shared_flag waits 30 s of real time for its child in every execution.
NEEDS_SETUP = {"missing_lib", "spin_forever", "pipe_deadlock", "many_increments", "writer_starvation", "trivial",
               "restroom_n", "attach_shared_flag"}


def _is_elf64(path):
    with open(path, "rb") as f:
        return f.read(5) == b"\x7fELF\x02"


def every_program(build):
    targets = os.path.join(build, "tests", "targets")
    examples = os.path.join(build, "examples")
    progs = []
    for name in sorted(os.listdir(targets)):
        path = os.path.join(targets, name)
        if (name in NEEDS_SETUP or not os.path.isfile(path) or not os.access(path, os.X_OK)
                or name.endswith(".sh") or ".so" in name or not _is_elf64(path)):
            continue
        progs.append((name, path))
    for problem in sorted(os.listdir(examples)) if os.path.isdir(examples) else []:
        d = os.path.join(examples, problem)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if (os.path.isfile(path) and os.access(path, os.X_OK) and not name.endswith(".sh") and "." not in name
                    and _is_elf64(path)):
                progs.append((f"{problem}/{name}", path))
    return progs
