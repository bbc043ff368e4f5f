#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Verdicts over TCP on loopback: --expect's PASS and FAIL (exit 3), --retry,
bad expressions (exit 2), re-judging a saved document with --report, the
link facts and counters every result carries, and `rdmaperf doctor` on
recorded sysfs trees (tests/fixtures/sysfs) and on this host.

    python3 tests/e2e/verdict.py /path/to/rdmaperf
"""
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import QUICK, check, check_doc, main, run  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "fixtures", "sysfs")
LOOP = ["--loopback", "-x", "tcp", "-o", "write", "-S", "4096", "-q", "8",
        "-C", "3000"] + QUICK


def loop(binary, extra, json_out=True):
    r = run(binary, LOOP + extra + (["--json"] if json_out else []))
    doc = None
    if json_out and r.out.strip():
        doc = json.loads(r.out)
        check_doc(doc, "verdict")
    return r, doc


def test_pass_exits_0(binary):
    r, doc = loop(binary, ["--expect", "bw>=1K,p99<=10s,errors>=0"])
    check(r.rc == 0, lambda: "a met --expect: want exit 0\n" + r.describe())
    v = doc["results"][0]["verdict"]
    check(v["pass"] is True and len(v["checks"]) == 3,
          "verdict %r" % v)
    check(all(c["pass"] for c in v["checks"]), "checks %r" % v["checks"])
    t = run(binary, LOOP + ["--expect", "bw>=1K"])
    check(t.rc == 0 and "verdict      PASS" in t.out,
          lambda: "text: want a PASS line\n" + t.describe())


def test_fail_exits_3(binary):
    r, doc = loop(binary, ["--expect", "bw>=100T"])
    check(r.rc == 3, lambda: "an unmet --expect: want exit 3\n" +
          r.describe())
    res = doc["results"][0]
    check(res["ok"] is True, "the test itself went well: ok %r" % res["ok"])
    c = res["verdict"]["checks"][0]
    check(res["verdict"]["pass"] is False and c["pass"] is False and
          c["metric"] == "bw" and c["limit"] == 1e14 and
          0 < c["measured"] < 1e14, "verdict %r" % res["verdict"])
    t = run(binary, LOOP + ["--expect", "bw>=100T"])
    check(t.rc == 3 and "verdict      FAIL" in t.out,
          lambda: "text: want a FAIL line\n" + t.describe())


def test_share_of_unknown_rate_fails(binary):
    # lo has no speed: a share of its rate cannot be judged, and is not
    # passed on a made-up rate
    r, doc = loop(binary, ["--expect", "bw>=1%"])
    check(r.rc == 3, lambda: "bw>=1%% of an unknown rate: want exit 3\n" +
          r.describe())
    res = doc["results"][0]
    c = res["verdict"]["checks"][0]
    check(c["measured"] is not None and "rated" in c.get("why", ""),
          "check %r" % c)
    check("rated" not in res, "a rated rate for lo: %r" % res.get("rated"))


def test_retry(binary):
    r, doc = loop(binary, ["--expect", "bw>=100T", "--retry", "2"])
    check(r.rc == 3, lambda: "want exit 3 after the retries\n" +
          r.describe())
    res = doc["results"][0]
    check(res.get("retries") == 2, "retries %r" % res.get("retries"))
    check(res["messages"] == 3000, "the last run's figures: %r" %
          res["messages"])
    r, doc = loop(binary, ["--expect", "bw>=1K", "--retry", "2"])
    check(r.rc == 0 and "retries" not in doc["results"][0],
          lambda: "a pass is not retried\n" + r.describe())
    t = run(binary, LOOP + ["--expect", "bw>=100T", "--retry", "1"])
    check("ran 1 more time (--retry)" in t.out,
          lambda: "text: want the retry line\n" + t.describe())


def test_bad_expressions(binary):
    for expr, token in (("p99<=5xs", "5xs"), ("foo>=1", "foo"),
                        ("p99=5us", "p99=5us"), ("bw>=1K,,p99<=1s", ""),
                        ("p99>=5%", "5%"), ("", "")):
        r = run(binary, LOOP + ["--expect", expr])
        err = r.err.strip().splitlines()
        check(r.rc == 2, lambda: "--expect %r: want exit 2\n" % expr +
              r.describe())
        check(err and err[0].startswith("rdmaperf: --expect") and
              token in err[0], lambda: "--expect %r: the line names %r\n" %
              (expr, token) + r.describe())
    r = run(binary, LOOP + ["--retry", "2"])
    check(r.rc == 2 and "--expect" in r.err,
          lambda: "--retry without --expect: want exit 2\n" + r.describe())
    r = run(binary, ["-s", "--expect", "bw>=1G"])
    check(r.rc == 2, lambda: "a server with --expect: want exit 2\n" +
          r.describe())


def test_report_judges_again(binary):
    r, doc = loop(binary, [])
    check(r.rc == 0 and "verdict" not in doc["results"][0],
          lambda: "no --expect, no verdict\n" + r.describe())
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "saved.json")
        with open(path, "w") as f:
            f.write(r.out)
        again = run(binary, ["--report", path, "--expect", "bw>=100T"])
        check(again.rc == 3 and "verdict      FAIL" in again.out,
              lambda: "--report --expect: want FAIL, exit 3\n" +
              again.describe())
        ok = run(binary, ["--report", path, "--expect", "bw>=1K", "--json"])
        check(ok.rc == 0 and
              json.loads(ok.out)["results"][0]["verdict"]["pass"],
              lambda: "--report --expect met: exit 0\n" + ok.describe())


def test_link_and_counters(binary):
    r, doc = loop(binary, [])
    res = doc["results"][0]
    link = res["client_transport"].get("link")
    check(link and link["kind"] == "netdev" and link["netdev"] == "lo",
          "client link %r" % link)
    check(link["rate_gbps"] is None and "speed_mbps" in link["missing"],
          "lo has no speed, and says so: %r" % link)
    cn = res.get("counters")
    check(cn and cn["status"] in ("clean", "lossy", "congested"),
          "counters %r" % cn)
    check(cn["same_host"] is True and cn["client"]["provider"] == "tcp",
          "counters %r" % cn)
    check("RetransSegs" in cn["client"]["deltas"].get("tcp", {}),
          "tcp's retransmissions in the deltas: %r" % cn["client"])
    t = run(binary, LOOP)
    check("  link         client lo" in t.out and
          "  counters     " in t.out,
          lambda: "text: the link and counters lines\n" + t.describe())


def test_interval_counters(binary):
    """-i: every interval carries the client's counters over it; --report
    keeps them; the JSON stream's interval lines have them too."""
    timed = ["--loopback", "-x", "tcp", "-o", "write", "-S", "4096", "-q",
             "8", "-t", "1.2", "-i", "0.4"] + QUICK
    r = run(binary, timed + ["--json"])
    check(r.rc == 0, lambda: "-i 0.4 --json\n" + r.describe())
    doc = json.loads(r.out)
    check_doc(doc, "verdict")
    ivs = doc["results"][0]["intervals"]
    check(len(ivs) >= 2, "intervals %r" % ivs)
    for iv in ivs:
        cn = iv.get("counters")
        # the test's own connections' resends (TCP_INFO) are its errors;
        # the host's RetransSegs, every connection's, is information
        check(cn and cn["provider"] == "tcp" and
              "RetransSegs" in cn["deltas"].get("tcp", {}) and
              "total_retrans" in cn["deltas"].get("socket", {}) and
              "RetransSegs" not in cn["errors"] and
              cn["error_total"] >= cn["deltas"]["socket"]["total_retrans"],
              "interval %d: counters %r" % (iv["index"], cn))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r.json")
        with open(path, "w") as f:
            f.write(r.out)
        again = run(binary, ["--report", path, "--json"])
        check(again.rc == 0, lambda: "--report\n" + again.describe())
        back = json.loads(again.out)["results"][0]["intervals"]
        check([iv.get("counters") for iv in back] ==
              [iv.get("counters") for iv in ivs],
              "--report: the intervals' counters %r, written %r" %
              (back, ivs))
    s = run(binary, timed + ["--json-stream"])
    check(s.rc == 0, lambda: "--json-stream\n" + s.describe())
    lines = [json.loads(x) for x in s.out.splitlines() if x.strip()]
    iv_lines = [x for x in lines if x.get("type") == "interval"]
    check(iv_lines and all("counters" in x for x in iv_lines),
          "--json-stream interval lines %r" % iv_lines)


def doctor(binary, root, args):
    env = dict(os.environ)
    if root:
        env["RP_SYSFS_ROOT"] = os.path.join(FIXTURES, root)
    return run(binary, ["doctor"] + args, env=env)


def test_doctor_fixtures(binary):
    if not os.path.isdir(os.path.join(FIXTURES, "mlx5_roce")):
        check(False, "no recorded sysfs trees under %s" % FIXTURES)
    r = doctor(binary, "mlx5_roce", ["--json"])
    check(r.rc == 1, lambda: "a downtrained slot: want exit 1\n" +
          r.describe())
    d = json.loads(r.out)
    pcie = [c for c in d["checks"] if c["check"] == "pcie"]
    check(d["ok"] is False and pcie and pcie[0]["status"] == "problem" and
          pcie[0].get("hint"), "the PCIe check %r" % pcie)
    t = doctor(binary, "mlx5_roce", [])
    check(t.rc == 1 and "PROBLEM  pcie" in t.out and "fix: " in t.out,
          lambda: "text: the PCIe problem and its fix\n" + t.describe())
    r = doctor(binary, "mlx5_ib", ["--json", "-d", "mlx5_0"])
    d = json.loads(r.out)
    port = [c for c in d["checks"] if c["check"] == "port"]
    check(port and port[0]["status"] == "ok", "mlx5_ib's port %r" % port)
    r = doctor(binary, "mlx5_ib", ["-d", "nosuch0"])
    check(r.rc == 1 and "no RDMA device nosuch0" in r.out,
          lambda: "-d nosuch0: a problem\n" + r.describe())
    r = doctor(binary, "mlx5_roce", ["--json", "-a", "192.0.2.77"])
    d = json.loads(r.out)
    gid = [c for c in d["checks"] if c["check"] == "gid"]
    check(gid and gid[0]["status"] == "problem",
          "no GID for an address no port has: %r" % gid)


def test_doctor_usage_and_host(binary):
    r = run(binary, ["doctor", "--nosuch"])
    check(r.rc == 2 and "unknown option" in r.err,
          lambda: "doctor --nosuch: exit 2\n" + r.describe())
    r = run(binary, ["doctor", "--cpu", "x"])
    check(r.rc == 2, lambda: "doctor --cpu x: exit 2\n" + r.describe())
    r = run(binary, ["doctor", "--json"])
    check(r.rc in (0, 1), lambda: "doctor on this host\n" + r.describe())
    d = json.loads(r.out)
    check(d["ok"] == (r.rc == 0) and any(c["check"] == "memlock"
                                         for c in d["checks"]),
          "doctor's document %r" % d)


if __name__ == "__main__":
    main([(f.__name__[5:], f) for f in (
        test_pass_exits_0, test_fail_exits_3,
        test_share_of_unknown_rate_fails, test_retry, test_bad_expressions,
        test_report_judges_again, test_link_and_counters,
        test_interval_counters, test_doctor_fixtures, test_doctor_usage_and_host)])
