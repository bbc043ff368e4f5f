#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
rdmaperf monitor CONFIG on loopback (doc/monitor.md): a real server
probed every 2 s beside a peer on a closed port and one that sends
garbage; /metrics scraped as OpenMetrics and as Prometheus text, its
figures sane (throughput > 0, quantiles ordered, probe_success 1 and 0),
`promtool check metrics` passing on it, a scrape answered while a probe
runs (a 1.2 s burst; the probe's own timestamps say when it ran), the
textfile written; a real Prometheus (Debian's binary, not its service)
scraping the monitor every second, its HTTP API then holding the series
with sane values and the target healthy (its OpenMetrics parser accepted
the text); a server that accepts and never answers, under --once: the
monitor waits out the control timeout, reports it down and the good peer
up, exit 1; each bad config exits 2 with its FILE:LINE; SIGTERM ends it.

Without prometheus or promtool, or a build without libmicrohttpd, the
test skips (77), except under CI=true where that fails.

    python3 tests/e2e/monitor.py /path/to/rdmaperf
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import e2elib  # noqa: E402
from e2elib import (Background, Server, check, free_port, log, main,  # noqa
                    run, wait_listening)

OM = "application/openmetrics-text; version=1.0.0; charset=utf-8"


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def get(url, accept=None, timeout=5):
    req = urllib.request.Request(url)
    if accept:
        req.add_header("Accept", accept)
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.headers.get("Content-Type"), r.read().decode()


def samples(text):
    """{(name, frozenset(labels)): value} of an exposition."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        head, value = line.rsplit(" ", 1)
        name, _, rest = head.partition("{")
        labels = []
        for part in rest.rstrip("}").split('",'):
            if part:
                k, v = part.split('="', 1)
                labels.append((k, v.rstrip('"')))
        out[(name, frozenset(labels))] = float(value)
    return out


def value(s, name, **labels):
    """The one sample of @name whose labels include @labels, or None."""
    got = [v for (n, ls), v in s.items()
           if n == name and set(labels.items()) <= ls]
    check(len(got) <= 1, "%s %s: %d samples" % (name, labels, len(got)))
    return got[0] if got else None


class Monitor:
    """rdmaperf monitor on @conf; stop() it."""

    def __init__(self, binary, conf, extra=()):
        self.err = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [binary, "monitor"] + list(extra) + [conf],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=self.err)

    def log(self):
        fd = self.err.fileno()
        return os.pread(fd, os.fstat(fd).st_size, 0).decode(errors="replace")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise e2elib.TestFailure("the monitor ignored SIGTERM")
        return self.proc.returncode


class Garbage(threading.Thread):
    """A peer that answers every connection with garbage (or, @silent,
    nothing at all), on a free port."""

    def __init__(self, silent=False):
        super().__init__(daemon=True)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.silent = silent
        self.held = []

    def run(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            if self.silent:
                self.held.append(c)
                continue
            try:
                c.sendall(b"HTTP/1.0 200 OK\r\n\r\n" + b"\xff" * 4096)
            except OSError:
                pass
            c.close()


def peer(name, port, extra=""):
    return ("[peer %s]\naddress = 127.0.0.1\nport = %d\ntransport = tcp\n"
            "op = write\nsize = 4K\nlat_iterations = 200\n%s\n"
            % (name, port, extra))


def scrape_during_probes(url, seconds):
    """Scrapes for @seconds: (sent, answered, text) of each."""
    out = []
    end = time.time() + seconds
    while time.time() < end:
        t0 = time.time()
        _, text = get(url, OM)
        out.append((t0, time.time(), text))
        time.sleep(0.1)
    return out


def check_live(mon, url, textfile):
    # the first round: both peers probed
    deadline = time.time() + 30
    while time.time() < deadline:
        s = samples(get(url)[1])
        if value(s, "rdmaperf_probes_total", peer="dead") and \
                value(s, "rdmaperf_probes_total", peer="junk") and \
                value(s, "rdmaperf_probes_total", peer="lo"):
            break
        time.sleep(0.2)
    else:
        raise e2elib.TestFailure("no first round in 30 s:\n" + mon.log())
    ctype, om = get(url, OM)
    check(ctype == OM, "Content-Type %r" % ctype)
    check(om.endswith("# EOF\n"), "no # EOF at the end")
    ctype, text = get(url)
    check(ctype.startswith("text/plain; version=0.0.4"), ctype)
    check("# EOF" not in text and "# UNIT" not in text, "0.0.4 text")
    s = samples(om)
    check(value(s, "rdmaperf_probe_success", peer="lo") == 1,
          lambda: "lo not up:\n" + mon.log())
    check(value(s, "rdmaperf_probe_success", peer="dead") == 0, "dead")
    check(value(s, "rdmaperf_probe_success", peer="junk") == 0, "junk")
    bps = value(s, "rdmaperf_throughput_bytes_per_second", peer="lo",
                transport="tcp", op="write", device="lo")
    check(bps and bps > 0, "throughput %r" % bps)
    q = [value(s, "rdmaperf_latency_seconds", peer="lo", quantile=k)
         for k in ("0.5", "0.99", "0.999")]
    check(all(x is not None for x in q) and 0 < q[0] <= q[1] <= q[2] < 1,
          "unloaded quantiles %r" % q)
    check(value(s, "rdmaperf_latency_seconds_count", peer="lo") >= 200,
          "latency count")
    check(value(s, "rdmaperf_expect_pass", peer="lo") == 1, "expect")
    check(value(s, "rdmaperf_expect_check_pass", peer="lo",
                expect="bw>=1M") == 1, "expect's term")
    check(value(s, "rdmaperf_throughput_bytes_per_second", peer="dead")
          is None, "a down peer shows no throughput")
    # the peers' sending time over the interval (on a loaded machine the
    # ping-pongs may take longer than the interval: no upper bound here)
    duty = value(s, "rdmaperf_duty_cycle_ratio")
    sending = sum(v for (n, _), v in s.items()
                  if n == "rdmaperf_probe_sending_seconds")
    check(duty is not None and duty > 0 and
          abs(duty - sending / 2) < 1e-6 * max(duty, 1),
          "duty cycle %r, sending %r s in 2 s" % (duty, sending))
    check(value(s, "rdmaperf_link_delta", peer="lo", side="client",
                group="netdev", counter="tx_bytes") > 0, "tx_bytes delta")
    log("lo: %.0f MB/s, p50 %.1f us, duty %.2f" % (bps / 1e6, q[0] * 1e6,
                                                   duty))
    # promtool on both forms (it parses the Prometheus text)
    for form in (text, open(textfile).read()):
        r = subprocess.run(["promtool", "check", "metrics"], input=form,
                           text=True, capture_output=True, timeout=60)
        check(r.returncode == 0, "promtool: %s%s" % (r.stdout, r.stderr))
    check(not os.path.exists(textfile + ".tmp"), "a .tmp left")
    check("dead (127.0.0.1 port" in mon.log() and
          "Connection refused" in mon.log(), mon.log)


def check_mid_probe(url):
    """Scrapes answered within 3 s, one of them inside a probe of lo."""
    got = scrape_during_probes(url, 5)
    slow = [b - a for a, b, _ in got if b - a > 3]
    check(not slow, "scrapes took %r s" % slow)
    windows = set()
    for _, _, text in got:
        s = samples(text)
        end = value(s, "rdmaperf_last_probe_timestamp_seconds", peer="lo")
        dur = value(s, "rdmaperf_probe_duration_seconds", peer="lo")
        windows.add((end - dur, end))
    inside = [(a, b) for a, b, _ in got
              for w0, w1 in windows if w0 < a and b < w1]
    check(inside, lambda: "no scrape inside a probe: scrapes %r, probes %r"
          % ([(a, b) for a, b, _ in got], sorted(windows)))
    log("%d scrapes, %d inside a probe of lo" % (len(got), len(inside)))


def prom_query(port, q):
    url = "http://127.0.0.1:%d/api/v1/query?query=%s" % (
        port, urllib.parse.quote(q))
    doc = json.loads(get(url)[1])
    check(doc.get("status") == "success", "query %s: %r" % (q, doc))
    return {r["metric"].get("peer"): float(r["value"][1])
            for r in doc["data"]["result"]}


def check_prometheus(mport, tmp):
    pport = free_port()
    write(os.path.join(tmp, "prometheus.yml"),
          "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
          "scrape_configs:\n  - job_name: rdmaperf\n    static_configs:\n"
          "      - targets: ['127.0.0.1:%d']\n" % mport)
    perr = tempfile.TemporaryFile(mode="w+")
    p = subprocess.Popen(
        ["prometheus", "--config.file=" + os.path.join(tmp, "prometheus.yml"),
         "--storage.tsdb.path=" + os.path.join(tmp, "tsdb"),
         "--web.listen-address=127.0.0.1:%d" % pport],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=perr)
    try:
        check(wait_listening(pport, p, 60), "prometheus did not listen")
        deadline = time.time() + 60
        ok = None
        while time.time() < deadline:  # two probe intervals, and scrapes
            time.sleep(1)
            try:
                ok = prom_query(pport, "rdmaperf_probe_success")
                bps = prom_query(pport,
                                 "rdmaperf_throughput_bytes_per_second")
                quant = prom_query(pport, 'rdmaperf_latency_seconds'
                                   '{quantile="0.99"}')
            except OSError:
                continue
            if ok.get("lo") == 1 and "dead" in ok and bps.get("lo"):
                break
        else:
            perr.seek(0)
            raise e2elib.TestFailure("prometheus holds %r; its log:\n%s"
                                     % (ok, perr.read()[-3000:]))
        check(ok["dead"] == 0 and bps["lo"] > 0 and 0 < quant["lo"] < 1,
              "series %r %r %r" % (ok, bps, quant))
        t = json.loads(get("http://127.0.0.1:%d/api/v1/targets" % pport)[1])
        tg = t["data"]["activeTargets"][0]
        check(tg["health"] == "up" and not tg["lastError"],
              "the target: %r" % tg)
        log("prometheus: success %r, throughput lo %.0f B/s" %
            (ok, bps["lo"]))
    finally:
        p.terminate()
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def test_live(binary):
    tmp = tempfile.mkdtemp(prefix="rp_monitor_")
    junk = Garbage()
    junk.start()
    mon = None
    try:
        with Server(binary) as srv:
            mport = free_port()
            textfile = os.path.join(tmp, "rdmaperf.prom")
            conf = os.path.join(tmp, "monitor.conf")
            write(conf, "[monitor]\ninterval = 2\nlisten = 127.0.0.1:1\n"
                  "textfile = %s\nmax_duty_cycle = 0.9\n"
                  "backoff_max = 4\n\n" % textfile +
                  peer("lo", srv.port, "burst = 1.2\n"
                       "expect = bw>=1M,unloaded_p50<=1s") +
                  peer("dead", free_port()) + peer("junk", junk.port))
            # --listen overrides the config's (port 1: not ours)
            mon = Monitor(binary, conf,
                          ["--listen", "127.0.0.1:%d" % mport])
            check(wait_listening(mport, mon.proc, 20),
                  lambda: "the monitor did not listen:\n" + mon.log())
            url = "http://127.0.0.1:%d/metrics" % mport
            check_live(mon, url, textfile)
            check_mid_probe(url)
            check_prometheus(mport, tmp)
            check(mon.proc.poll() is None, "the monitor died")
            check(srv.alive(), "the server died")
        rc = mon.stop()
        check(rc == 0, "exit %r after SIGTERM:\n%s" % (rc, mon.log()))
    finally:
        if mon:
            mon.stop()
        junk.sock.close()
        shutil.rmtree(tmp, ignore_errors=True)


def test_hang_once(binary):
    """A peer that accepts and never answers: down after the control
    timeout, the good peer probed still; --once exits 1."""
    tmp = tempfile.mkdtemp(prefix="rp_monitor_")
    hang = Garbage(silent=True)
    hang.start()
    try:
        with Server(binary) as srv:
            textfile = os.path.join(tmp, "t.prom")
            conf = os.path.join(tmp, "m.conf")
            write(conf, "interval = 5\nburst = 0.1\n" +
                  peer("hang", hang.port) + peer("lo", srv.port))
            r = run(binary, ["monitor", "--once", "--textfile", textfile,
                             conf], timeout=60)
            check(r.rc == 1, r.describe)
            check("peer hang (127.0.0.1 port %d): down:" % hang.port in r.err,
                  r.describe)
            s = samples(open(textfile).read())
            check(value(s, "rdmaperf_probe_success", peer="hang") == 0 and
                  value(s, "rdmaperf_probe_success", peer="lo") == 1,
                  "textfile: %r" % s)
            log("hang: %s" % [x for x in r.err.splitlines()
                              if "peer hang" in x][0])
    finally:
        hang.sock.close()
        shutil.rmtree(tmp, ignore_errors=True)


BAD = [
    # (config, line, words)
    ("[monitor]\ncolour = red\n[peer a]\naddress = 127.0.0.1\n", 2,
     "unknown key 'colour'"),
    ("[peer a]\naddress = 127.0.0.1\nop = scribble\n", 3, "-o/--op"),
    ("[peer a]\naddress = no-such-peer.invalid\n", 2, "cannot resolve"),
    ("interval = 1\nburst = 0.6\n[peer a]\naddress = 127.0.0.1\n"
     "[peer b]\naddress = 127.0.0.1\n", 1, "shorter than the probes"),
    ("interval = 10\n[peer a]\naddress = 127.0.0.1\nburst = 2\n", 1,
     "above max_duty_cycle"),
]


def test_bad_config(binary):
    tmp = tempfile.mkdtemp(prefix="rp_monitor_")
    held = socket.socket()
    try:
        conf = os.path.join(tmp, "bad.conf")
        for text, line, words in BAD:
            write(conf, text)
            r = run(binary, ["monitor", conf], timeout=30)
            want = "rdmaperf monitor: %s:%d: " % (conf, line)
            check(r.rc == 2 and r.err.startswith(want) and words in r.err
                  and r.err.count("\n") == 1,
                  lambda: "wanted %s...%s:\n%s" % (want, words, r.describe()))
        # the listen port in use
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        write(conf, "interval = 30\nlisten = 127.0.0.1:%d\n"
              "[peer a]\naddress = 127.0.0.1\n" % held.getsockname()[1])
        r = run(binary, ["monitor", conf], timeout=30)
        check(r.rc == 2 and r.err.startswith(
            "rdmaperf monitor: %s:2: listen: " % conf) and
            "Address already in use" in r.err, r.describe)
        r = run(binary, ["monitor", "--listen", "127.0.0.1:%d" %
                         held.getsockname()[1], conf], timeout=30)
        check(r.rc == 2 and "--listen: " in r.err and
              "Address already in use" in r.err, r.describe)
        for args in (["monitor"], ["monitor", "--frob", conf],
                     ["monitor", conf, "extra"],
                     ["monitor", os.path.join(tmp, "none.conf")]):
            r = run(binary, args, timeout=30)
            check(r.rc == 2 and r.err.startswith("rdmaperf monitor: "),
                  r.describe)
        r = run(binary, ["monitor", "--help"], timeout=30)
        check(r.rc == 0 and "--textfile PATH" in r.out, r.describe)
    finally:
        held.close()
        shutil.rmtree(tmp, ignore_errors=True)


def skip_unless_ready(binary):
    why = None
    for tool in ("prometheus", "promtool"):
        if not shutil.which(tool):
            why = "%s not found (Debian: prometheus)" % tool
    tmp = tempfile.mkdtemp(prefix="rp_monitor_")
    try:
        conf = os.path.join(tmp, "m.conf")
        write(conf, "listen = 127.0.0.1:0\n[peer a]\naddress = 127.0.0.1\n")
        p = subprocess.Popen([binary, "monitor", conf],
                             stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        try:
            _, err = p.communicate(timeout=1)
        except subprocess.TimeoutExpired:  # it serves: HTTP is built in
            p.terminate()
            _, err = p.communicate()
        if "without libmicrohttpd" in err:
            why = "this rdmaperf was built without libmicrohttpd"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if why and os.environ.get("CI") == "true":
        sys.stderr.write("e2e.monitor: %s, and CI needs it\n" % why)
        sys.exit(1)
    if why:
        sys.stderr.write("e2e.monitor: skipped: %s\n" % why)
        sys.exit(77)


BACKGROUND = {"hang_once": Background(test_hang_once, 90)}

if __name__ == "__main__":
    skip_unless_ready(e2elib.binary_from_argv())
    for case in BACKGROUND.values():
        case.start(e2elib.binary_from_argv())
    main([("bad_config", test_bad_config),
          ("live", test_live),
          ("hang_once", BACKGROUND["hang_once"].test)])
