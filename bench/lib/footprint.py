#!/usr/bin/env python3
"""What a running authbrokerd consists of, from /proc (run as the daemon's user or root).

  footprint.py rss PID              RSS by mapping: the daemon's text, each shared library, heap,
                                    thread stacks (matched through each thread's stack pointer),
                                    other anonymous memory; then the threads and their touched stacks
  footprint.py wakeups PID SECONDS  per thread: times it was scheduled (schedstat's run count) and
                                    voluntary context switches during SECONDS of idle
  footprint.py clear-refs PID       clears the "referenced" bit of every page of PID (/proc/PID/clear_refs)
  footprint.py referenced PID       RSS and pages referenced since clear-refs, by mapping: the working set
  footprint.py ready DAEMON SOCKET AUTHCTL RUNS
                                    restarts DAEMON RUNS times: time from posix_spawn to READY=1 on
                                    NOTIFY_SOCKET and to the first answered `authctl ping`, and the
                                    CPU time spent until READY; VmRSS 5 s after the last READY
  footprint.py compare SOCKET RUNS DAEMON...
                                    the DAEMONs (e.g. this build and main's) against the same state,
                                    alternating A B A B … RUNS times each: READY=1 wall and CPU time
                                    (medians), then RSS by mapping 5 s after each one's last READY
  footprint.py refreshes DAEMON SOCKET COUNT TIMEOUT FILE
                                    starts DAEMON and writes the time of each "refreshing the access
                                    token" line of its log to FILE, until COUNT or TIMEOUT seconds
  footprint.py histogram FILE       FILE has one time (seconds, any origin) per line: refreshes per
                                    second as a histogram, and the largest second
"""
import collections, os, socket, subprocess, sys, time


def mappings(pid, field="Anonymous:"):
    """(start, end, name, rss_kb, FIELD kb) per mapping of /proc/PID/smaps."""
    result, current = [], None
    for line in open(f"/proc/{pid}/smaps"):
        fields = line.split()
        if "-" in fields[0] and not fields[0].endswith(":"):
            start, end = (int(x, 16) for x in fields[0].split("-"))
            current = [start, end, fields[5] if len(fields) > 5 else "", 0, 0]
            result.append(current)
        elif fields[0] == "Rss:":
            current[3] = int(fields[1])
        elif fields[0] == field:
            current[4] = int(fields[1])
    return result


def thread_stack_pointers(pid):
    """{tid: (name, stack pointer)} from /proc/PID/task/TID/syscall (blocked threads show their sp)."""
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        name = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
        fields = open(f"/proc/{pid}/task/{tid}/syscall").read().split()
        sp = int(fields[-2], 16) if len(fields) >= 3 else None
        threads[int(tid)] = (name, sp)
    return threads


def group(name, daemon):
    base = os.path.basename(name)
    if name == daemon or base == os.path.basename(daemon):
        return "daemon text/data (file)"
    for library in ("libcrypto", "libssl", "libsqlite3", "libstdc++", "libc.so", "libm.so", "ld-linux", "libgcc_s", "libz"):
        if base.startswith(library):
            return base.split(".so")[0]
    if name in ("[heap]", "[stack]", "[vvar]", "[vdso]"):
        return name
    return "other file" if name.startswith("/") else "anonymous"


def rss(pid):
    daemon = os.readlink(f"/proc/{pid}/exe")
    maps = mappings(pid)
    threads = thread_stack_pointers(pid)
    stacks = {}
    for tid, (name, sp) in threads.items():
        for m in maps:
            if sp is not None and m[0] <= sp < m[1]:
                stacks[tid] = (name, m)
    stack_ranges = {(m[0], m[1]) for _, m in stacks.values()}
    totals = collections.Counter()
    anonymous = collections.Counter()
    for start, end, name, rss_kb, anon_kb in maps:
        key = "thread stacks" if (start, end) in stack_ranges and name != "[stack]" else group(name, daemon)
        totals[key] += rss_kb
        anonymous[key] += anon_kb
    table("of which anonymous kB", totals, anonymous)
    print()
    print(f"{len(threads)} threads:", ", ".join(
        f"{name} ({stacks[tid][1][3] if tid in stacks else '?'} kB stack touched)"
        for tid, (name, _) in sorted(threads.items())))


def referenced(pid):
    daemon = os.readlink(f"/proc/{pid}/exe")
    rss_by, used_by = collections.Counter(), collections.Counter()
    for _, _, name, rss_kb, referenced_kb in mappings(pid, "Referenced:"):
        rss_by[group(name, daemon)] += rss_kb
        used_by[group(name, daemon)] += referenced_kb
    table("referenced since clear-refs kB", rss_by, used_by)


def table(column, rss_by, other_by):
    """A Markdown table: RSS and `column` per mapping group, largest first, then the totals."""
    print(f"| mapping | RSS kB | {column} |")
    print("|---|---:|---:|")
    for key, value in rss_by.most_common():
        if value:
            print(f"| {key} | {value} | {other_by[key]} |")
    print(f"| **total** | **{sum(rss_by.values())}** | **{sum(other_by.values())}** |")


def wakeups(pid, seconds):
    def sample():
        counts = {}
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                runs = int(open(f"/proc/{pid}/task/{tid}/schedstat").read().split()[2])
                status = dict(l.split(":", 1) for l in open(f"/proc/{pid}/task/{tid}/status"))
                name = status["Name"].strip()
                counts[int(tid)] = (name, runs, int(status["voluntary_ctxt_switches"]))
            except (FileNotFoundError, ProcessLookupError):
                pass
        return counts
    before = sample()
    time.sleep(seconds)
    after = sample()
    total = 0
    lines = []
    for tid, (name, runs, voluntary) in sorted(after.items()):
        old = before.get(tid, (name, 0, 0))
        total += runs - old[1]
        lines.append(f"  {tid} {name}: scheduled {runs - old[1]} times, {voluntary - old[2]} voluntary switches"
                     + ("" if tid in before else " (new thread)"))
    gone = [f"{tid} {before[tid][0]}" for tid in before if tid not in after]
    print(f"idle wake-ups over {seconds} s: {total} (threads: {len(after)}; ended meanwhile: {', '.join(gone) or 'none'})")
    print("\n".join(lines))


def spawn_until_ready(daemon, sock):
    """Starts DAEMON on SOCK with a NOTIFY_SOCKET; returns (pid, ms to READY=1, CPU ms until then)."""
    notify_path = os.path.join(os.environ["XDG_RUNTIME_DIR"], "notify.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(notify_path)
    listener.settimeout(60)
    log = open(os.path.join(os.environ["HOME"], "footprint.log"), "a")
    start = time.monotonic()
    pid = os.posix_spawn(daemon, [daemon, "--socket", sock], dict(os.environ, NOTIFY_SOCKET=notify_path),
                         file_actions=[(os.POSIX_SPAWN_DUP2, log.fileno(), 2)])
    try:
        while b"READY=1" not in listener.recv(4096).split(b"\n"):
            pass
        return pid, (time.monotonic() - start) * 1e3, cpu_seconds(pid) * 1e3
    finally:
        listener.close()
        os.unlink(notify_path)


def compare(sock, runs, daemons):
    ready_ms = {d: [] for d in daemons}
    cpu_ms = {d: [] for d in daemons}
    groups = {}
    for run in range(runs):
        for daemon in daemons:
            pid, ready, cpu = spawn_until_ready(daemon, sock)
            ready_ms[daemon].append(ready)
            cpu_ms[daemon].append(cpu)
            if run == runs - 1:
                time.sleep(5)
                groups[daemon] = collections.Counter()
                for _, _, name, rss_kb, _ in mappings(pid):
                    groups[daemon][group(name, os.readlink(f"/proc/{pid}/exe"))] += rss_kb
            os.kill(pid, 15)
            os.waitpid(pid, 0)
    median = lambda values: sorted(values)[len(values) // 2]
    print("| daemon | READY=1 median (min) | CPU until READY median (min) | VmRSS 5 s after READY |")
    print("|---|---:|---:|---:|")
    for d in daemons:
        print(f"| {d} | {median(ready_ms[d]):.1f} ms ({min(ready_ms[d]):.1f}) | {median(cpu_ms[d]):.1f} ms "
              f"({min(cpu_ms[d]):.1f}) | {sum(groups[d].values())} kB |")
    print()
    keys = sorted({k for d in daemons for k in groups[d]}, key=lambda k: -groups[daemons[0]][k])
    print("| mapping (RSS kB) | " + " | ".join(f"daemon {i + 1}" for i in range(len(daemons))) + " |")
    print("|---|" + "---:|" * len(daemons))
    for k in keys:
        print(f"| {k} | " + " | ".join(str(groups[d][k]) for d in daemons) + " |")


def ready(daemon, sock, authctl, runs):
    ready_ms, pinged_ms, cpu_ms = [], [], []
    for run in range(runs):
        start = time.monotonic()
        pid, ready, cpu = spawn_until_ready(daemon, sock)
        ready_ms.append(ready)
        cpu_ms.append(cpu)
        while subprocess.run([authctl, "--socket", sock, "ping"], capture_output=True).returncode != 0:
            time.sleep(0.001)
        pinged_ms.append((time.monotonic() - start) * 1e3)
        if run == runs - 1:
            time.sleep(5)
            status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status"))
            rss, hwm, threads = (status[k].strip() for k in ("VmRSS", "VmHWM", "Threads"))
        os.kill(pid, 15)
        os.waitpid(pid, 0)
    ready_ms.sort(); pinged_ms.sort(); cpu_ms.sort()
    print("time to READY=1: median %.1f ms, max %.1f ms; to first ping answered: median %.1f ms (%d runs)"
          % (ready_ms[len(ready_ms) // 2], ready_ms[-1], pinged_ms[len(pinged_ms) // 2], runs))
    print("CPU time (all threads) until READY=1: median %.1f ms — less sensitive to a loaded machine than the wall time"
          % cpu_ms[len(cpu_ms) // 2])
    print(f"idle 5 s after READY: VmRSS {rss}, VmHWM {hwm}, {threads} threads")


def cpu_seconds(pid):
    """Time on CPU of every thread of PID so far (schedstat's first field, nanoseconds)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            total += int(open(f"/proc/{pid}/task/{tid}/schedstat").read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total / 1e9


def refreshes(daemon, sock, count, timeout, path):
    import threading
    process = subprocess.Popen([daemon, "--socket", sock], stderr=subprocess.PIPE, text=True)
    times, done = [], threading.Event()

    def read():
        for line in process.stderr:
            if "refreshing the access token" in line:
                times.append(time.monotonic())
                if len(times) >= count:
                    done.set()
        done.set()
    threading.Thread(target=read, daemon=True).start()
    done.wait(timeout)
    time.sleep(2)  # let the last refreshes commit before the stop
    process.terminate()
    process.wait(timeout=30)
    with open(path, "w") as out:
        out.writelines("%.3f\n" % t for t in times)
    print(f"{len(times)} of {count} refreshes started within {timeout:.0f} s")


def histogram(path):
    times = sorted(float(line) for line in open(path) if line.strip())
    if not times:
        print("no refreshes")
        return
    origin = int(times[0])
    per_second = collections.Counter(int(t) - origin for t in times)
    widest = max(per_second.values())
    for second in range(max(per_second) + 1):
        count = per_second.get(second, 0)
        print(f"  {second:4d} s {count:5d} {'#' * round(60 * count / widest)}")
    print(f"{len(times)} refreshes over {times[-1] - times[0]:.1f} s; at most {widest} in any second")


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "rss":
        rss(int(sys.argv[2]))
    elif command == "clear-refs":
        open(f"/proc/{sys.argv[2]}/clear_refs", "w").write("1")
    elif command == "referenced":
        referenced(int(sys.argv[2]))
    elif command == "wakeups":
        wakeups(int(sys.argv[2]), float(sys.argv[3]))
    elif command == "ready":
        ready(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif command == "compare":
        compare(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    elif command == "refreshes":
        refreshes(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), sys.argv[6])
    elif command == "histogram":
        histogram(sys.argv[2])
    else:
        sys.exit(__doc__)
