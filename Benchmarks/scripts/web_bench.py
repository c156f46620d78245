#!/usr/bin/env python3
"""W12, the web host: a streamed download of a large file (1 GiB by default, W12_BYTES to change)
through `dukjs fetch` (WebLoader's downloadStream) against `curl` fetching the same file from the
same local server (Python's http.server) in the same run, in alternating rounds (curl, then
ours; 6 by default, W12_ROUNDS to change), with the download's SHA-256 checked and dukjs's
resident memory sampled every 50 ms; 1,000 small GET JSON requests through one WebLoader
against curl fetching the same 1,000 URLs in one process; and a 16 MiB in-memory download with
bytes crossing the bridge as Uint8Array/Data and as base64. Writes RESULTS/web.json."""
import hashlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

results, dukjs, requests_tool = sys.argv[1:4]
size = int(os.environ.get("W12_BYTES", 1 << 30))
rounds = max(1, int(os.environ.get("W12_ROUNDS", 6)))
work = tempfile.mkdtemp(prefix="w12-")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(16 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def timed(command, sample=False):
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    samples = []
    while process.poll() is None:
        if sample:
            value = rss_kib(process.pid)
            if value:
                samples.append((time.monotonic() - start, value))
        time.sleep(0.05)
    elapsed = time.monotonic() - start
    if process.returncode != 0:
        sys.exit(f"W12: {' '.join(command)} failed with status {process.returncode}")
    return elapsed, samples


try:
    big = os.path.join(work, "big.bin")
    digest = hashlib.sha256()
    with open(big, "wb") as handle:
        written = 0
        while written < size:
            chunk = os.urandom(min(16 << 20, size - written))
            handle.write(chunk)
            digest.update(chunk)
            written += len(chunk)
    expected = digest.hexdigest()
    with open(os.path.join(work, "small.json"), "w") as handle:
        handle.write('{"ok": true, "items": [1, 2, 3]}')
    with open(os.path.join(work, "bridge.bin"), "wb") as handle:
        handle.write(os.urandom(16 << 20))

    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", work],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)

    out = os.path.join(work, "out.bin")
    curl_times, ours_times, growth, peaks = [], [], [], []
    for _ in range(rounds):
        elapsed, _ = timed(["curl", "-s", "-f", "-o", out, f"{base}/big.bin"])
        if sha256(out) != expected:
            sys.exit("W12: curl's download differs")
        os.remove(out)
        curl_times.append(elapsed)
        elapsed, samples = timed([dukjs, "fetch", f"{base}/big.bin", "-o", out], sample=True)
        if sha256(out) != expected:
            sys.exit("W12: dukjs fetch's download differs")
        os.remove(out)
        ours_times.append(elapsed)
        # Growth: the peak against the resident size once the transfer runs (after 0.5 s).
        steady = [value for (at, value) in samples if at >= 0.5] or [value for (_, value) in samples]
        growth.append((max(steady) - steady[0]) / 1024 if steady else 0)
        peaks.append(max(value for (_, value) in samples) / 1024 if samples else 0)

    # 1,000 small GETs: curl fetches the same URLs in one process (its connection handling).
    config = os.path.join(work, "curl.cfg")
    with open(config, "w") as handle:
        for _ in range(1000):
            handle.write(f'url = "{base}/small.json"\noutput = "/dev/null"\n')
    curl_requests = min(timed(["curl", "-s", "-f", "-K", config])[0] for _ in range(3))
    ours_requests = []
    for _ in range(3):
        report = json.loads(subprocess.run([requests_tool, "requests", f"{base}/small.json", "1000"],
                                           check=True, capture_output=True, text=True).stdout)
        ours_requests.append(report["seconds"])
    bare_requests = []
    for _ in range(3):
        report = json.loads(subprocess.run([requests_tool, "bare", f"{base}/small.json", "1000"],
                                           check=True, capture_output=True, text=True).stdout)
        bare_requests.append(report["seconds"])
    bridge = json.loads(subprocess.run([requests_tool, "bridge", f"{base}/bridge.bin"],
                                       check=True, capture_output=True, text=True).stdout)
    server.terminate()
    server.wait()

    mib = size / (1 << 20)
    web = {
        "bytes": size,
        "sha256_checked": True,
        "curl_seconds": curl_times,
        "ours_seconds": ours_times,
        "curl_mib_s": mib / statistics.median(curl_times),
        "ours_mib_s": mib / statistics.median(ours_times),
        # Each round's ratio (curl's time over ours, measured back to back), then their median.
        "throughput_ratio": statistics.median(c / o for c, o in zip(curl_times, ours_times)),
        "rounds": rounds,
        "rss_growth_mib": growth,
        "rss_peak_mib": peaks,
        "requests": 1000,
        "curl_requests_per_s": 1000 / curl_requests,
        "ours_requests_per_s": 1000 / min(ours_requests),
        "bare_requests_per_s": 1000 / min(bare_requests),
        "bridge": bridge,
    }
    with open(os.path.join(results, "web.json"), "w") as handle:
        json.dump(web, handle, indent=2)
    print(json.dumps(web, indent=2))
finally:
    shutil.rmtree(work, ignore_errors=True)
