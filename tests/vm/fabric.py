#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The virtual fabric: 2 to 4 qemu guests on one L2 segment (and optionally a
second one, a second rail), each with Debian's kernel, the host root
read-only and a Soft-RoCE (or Soft-iWARP) device on its virtio-net NIC. A
library for the tests (tests/vm/fabric_tests.py) and the bench, and a
command for users (tests/vm/fabric, which is this file):

    tests/vm/fabric [OPTIONS] STEP...

tests/vm/README.md ("The virtual fabric") says how it is built and why.

The segment: a Linux bridge with one tap per guest NIC, all inside a network
namespace of the harness's own (rpfab-PID), so the host's own networking is
never touched and deleting the namespace removes every link at once. The
guests reach each other only; the host reaches them through their 9p share.

The channel: each guest runs a small agent (busybox sh) that takes job
scripts from its run share (/run/rp/q), runs each in a session of its own,
and leaves its output and exit status there. A job that outlives its
timeout is killed by its process group. Launch agents inside a guest (Open
MPI's plm_rsh_agent: tests/vm/fabric-rsh) ask the host through
/run/rp/relay to start a job on another guest.
"""
import argparse
import ctypes
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXIT_SKIP = 77
MAX_GUESTS = 4
MSIZE = 262144
BOOT_S = float(os.environ.get("RP_VM_BOOT_S", "120"))


def die_with_parent():
    """In the child, before exec: SIGKILL when the harness goes."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class FabricError(Exception):
    """The fabric could not do what it was asked (a VM failure)."""


class FabricUsage(FabricError):
    """Bad input to the harness: one line, exit 2."""


class FabricSkip(FabricError):
    """Something the fabric needs is absent here (exit 77)."""


def addr(guest, rail=0):
    """IPv4 address of @guest (1-based) on @rail."""
    return "10.%d.0.%d" % (78 + rail, guest)


def addr6(guest, rail=0):
    """The guest's IPv6 ULA on @rail."""
    return "fd78:0:%x::%x" % (rail, guest)


def netdev(rail=0):
    return "eth%d" % rail


def sq(s):
    return shlex.quote(str(s))


class Result:
    def __init__(self, guest, cmd, rc, out, seconds):
        self.guest, self.cmd, self.rc = guest, cmd, rc
        self.out, self.seconds = out, seconds

    def describe(self):
        return "guest %d: %s\nexit %r after %.1f s\n%s" % (
            self.guest, self.cmd, self.rc, self.seconds, self.out.rstrip())


class Job:
    """A command running on one guest."""

    def __init__(self, fab, guest, cmd, jid):
        self.fab, self.guest, self.cmd, self.id = fab, guest, cmd, jid
        self.base = os.path.join(fab.guest_dir(guest), "io", "q", jid)
        self.t0 = time.monotonic()
        self.result = None

    def output(self):
        try:
            with open(self.base + ".out", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def done(self):
        return os.path.exists(self.base + ".rc")

    def wait_output(self, pattern, timeout):
        """Wait until the output matches @pattern (a regex); False when
        the job ended or @timeout passed first."""
        end = time.monotonic() + timeout
        rx = re.compile(pattern)
        while time.monotonic() < end:
            if rx.search(self.output()):
                return True
            if self.done() or not self.fab.alive(self.guest):
                return bool(rx.search(self.output()))
            time.sleep(0.1)
        return False

    def kill(self):
        """SIGKILL the job's process group (the agent does it)."""
        if not self.done():
            open(self.base + ".kill", "w").close()

    def wait(self, timeout):
        """The job's Result; on timeout it is killed and its rc is 124;
        when its guest is gone, rc is None."""
        if self.result:
            return self.result
        end = time.monotonic() + timeout
        rc = None
        while True:
            if self.done():
                rc = self._rc()
                break
            if not self.fab.alive(self.guest):
                break
            if time.monotonic() >= end:
                self.kill()
                grace = time.monotonic() + 10
                while not self.done() and time.monotonic() < grace and \
                        self.fab.alive(self.guest):
                    time.sleep(0.1)
                rc = 124
                break
            time.sleep(0.05)
        out = self.output()
        if rc is None:
            out += "\nfabric: guest %d went away during the job\n" % self.guest
        elif rc == 124:
            out += "\nfabric: killed after %.0f s (its timeout)\n" % timeout
        self.result = Result(self.guest, self.cmd, rc, out,
                             time.monotonic() - self.t0)
        return self.result

    def _rc(self):
        with open(self.base + ".rc") as f:
            v = f.read().strip()
        return int(v) if v.isdigit() else 255


class Fabric:
    """N guests on a bridge. Use as a context manager: every qemu process,
    the namespace and its links are gone after it, also on an exception or
    SIGINT."""

    def __init__(self, guests=2, cpus=1, mem=384, rails=1, siw_ko=None,
                 speed=None, duplex="full", timeout=1800, log_dir=None,
                 env=None, boot_s=BOOT_S):
        if not isinstance(guests, int) or not 2 <= guests <= MAX_GUESTS:
            raise FabricUsage("guests: %r is out of range (2 to %d)" %
                              (guests, MAX_GUESTS))
        if rails not in (1, 2):
            raise FabricUsage("rails: %r (1 or 2)" % rails)
        if not isinstance(cpus, int) or not 1 <= cpus <= 8:
            raise FabricUsage("cpus: %r is out of range (1 to 8)" % cpus)
        if not isinstance(mem, int) or not 128 <= mem <= 4096:
            raise FabricUsage("mem: %r MiB is out of range (128 to 4096)"
                              % mem)
        if speed is not None and not (isinstance(speed, int) and
                                      0 < speed <= 10**7):
            raise FabricUsage("speed: %r Mb/s is out of range" % speed)
        if duplex not in ("full", "half"):
            raise FabricUsage("duplex: %r (full or half)" % duplex)
        self.n, self.cpus, self.mem, self.rails = guests, cpus, mem, rails
        self.siw_ko, self.speed, self.duplex = siw_ko, speed, duplex
        self.timeout, self.log_dir, self.boot_s = timeout, log_dir, boot_s
        self.env = dict(env or {})
        self.dev = "siw" if siw_ko else "rxe"
        self.ns = "rpfab-%d" % os.getpid()
        self.work = None
        self.procs = {}
        self.seq = 0
        self.lock = threading.Lock()
        self.relay_stop = threading.Event()
        self.relay_thread = None
        self.relay_jobs = {}

    # ------------------------------------------------------------ set-up

    def __enter__(self):
        try:
            self.up()
        except BaseException:
            self.down()
            raise
        return self

    def __exit__(self, *exc):
        self.down()
        return False

    def guest_dir(self, g):
        return os.path.join(self.work, "g%d" % g)

    def rdma_dev(self, rail=0):
        return "%s%d" % (self.dev, rail)

    def requirements(self):
        for cmd, pkg in (("qemu-system-x86_64", "qemu-system-x86"),
                         ("ip", "iproute2"), ("tc", "iproute2"),
                         ("timeout", "coreutils")):
            if not shutil.which(cmd, path=os.environ.get("PATH", "") +
                                ":/usr/sbin:/sbin"):
                raise FabricSkip("%s missing (apt-get install %s)" %
                                 (cmd, pkg))
        if os.geteuid() != 0:
            raise FabricSkip("the fabric's bridge and taps need root")
        if not os.access("/dev/net/tun", os.R_OK | os.W_OK):
            raise FabricSkip("/dev/net/tun is not usable here")

    def sh(self, *argv, check=True):
        p = subprocess.run(argv, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True)
        if check and p.returncode:
            raise FabricError("%s: %s" % (" ".join(argv),
                                          (p.stderr or p.stdout).strip()))
        return p

    def prepare(self):
        p = subprocess.run([os.path.join(HERE, "rxe-run"), "--prepare"],
                           stdin=subprocess.DEVNULL, capture_output=True,
                           text=True)
        if p.returncode == EXIT_SKIP:
            raise FabricSkip(p.stderr.strip().replace("rxe-run: skipped: ",
                                                      ""))
        if p.returncode:
            raise FabricError("rxe-run --prepare: " + p.stderr.strip())
        self.kernel, self.initrd = p.stdout.split()

    @staticmethod
    def sweep_stale():
        """Namespaces of harnesses that died without cleaning up (SIGKILL)."""
        p = subprocess.run(["ip", "netns", "list"], capture_output=True,
                           text=True)
        for line in p.stdout.splitlines():
            m = re.match(r"rpfab-(\d+)\b", line)
            if m and not os.path.exists("/proc/%s" % m.group(1)):
                subprocess.run(["ip", "netns", "del", "rpfab-" + m.group(1)],
                               capture_output=True)

    def make_links(self):
        self.sweep_stale()
        self.sh("ip", "netns", "add", self.ns)
        for r in range(self.rails):
            br = "br%d" % r
            self.sh("ip", "-n", self.ns, "link", "add", br, "type", "bridge",
                    "stp_state", "0", "forward_delay", "0")
            self.sh("ip", "-n", self.ns, "link", "set", br, "up")
            for g in range(1, self.n + 1):
                tap = "tap%d.%d" % (g, r)
                self.sh("ip", "-n", self.ns, "tuntap", "add", "dev", tap,
                        "mode", "tap")
                self.sh("ip", "-n", self.ns, "link", "set", tap, "master",
                        br, "up")

    def up(self):
        # SIGTERM (ctest, a CI runner, kill) unwinds like SIGINT, so that
        # __exit__ takes the guests and links down.
        # SIGINT too, even where a shell started the harness in the
        # background with SIGINT ignored.
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                if signal.getsignal(sig) in (signal.SIG_DFL, signal.SIG_IGN):
                    signal.signal(sig, interrupted)
        self.requirements()
        self.prepare()
        if self.siw_ko and not os.path.isfile(self.siw_ko):
            raise FabricUsage("siw module %s not found" % self.siw_ko)
        if self.log_dir:
            os.makedirs(self.log_dir, exist_ok=True)
        self.work = tempfile.mkdtemp(prefix="rpfab.")
        os.chmod(self.work, 0o755)
        self.make_links()
        for g in range(1, self.n + 1):
            d = self.guest_dir(g)
            for sub in ("io/q", "io/relay"):
                os.makedirs(os.path.join(d, sub))
            with open(os.path.join(d, "io", "stage2.sh"), "w") as f:
                f.write(self.stage2(g))
        t0 = time.monotonic()
        for g in range(1, self.n + 1):
            self.boot(g)
        for g in range(1, self.n + 1):
            self.wait_ready(g)
        self.boot_seconds = time.monotonic() - t0
        self.relay_thread = threading.Thread(target=self.relay, daemon=True)
        self.relay_thread.start()
        threading.Thread(target=self.watchdog, daemon=True).start()

    def watchdog(self):
        """Every guest is killed when the fabric has lived --timeout."""
        if not self.relay_stop.wait(self.timeout):
            sys.stderr.write("fabric: the fabric's %.0f s are up: killing "
                             "its guests\n" % self.timeout)
            for g in list(self.procs):
                self.stop_qemu(g)

    def console(self, g):
        if self.log_dir:
            return os.path.join(self.log_dir, "guest%d.log" % g)
        return os.path.join(self.guest_dir(g), "console.log")

    def boot(self, g):
        d = self.guest_dir(g)
        for f in ("ready", "setup-error"):
            try:
                os.unlink(os.path.join(d, "io", f))
            except FileNotFoundError:
                pass
        open(self.console(g), "w").close()
        append = ("console=ttyS0 panic=-1 quiet loglevel=4 mitigations=off "
                  "cryptomgr.notests " + os.environ.get("RP_VM_APPEND", ""))
        cpu = os.environ.get("RP_VM_CPU", "max,-erms,-fsrm")
        q = ["qemu-system-x86_64", "-accel", "tcg,thread=multi", "-cpu", cpu,
             "-smp", str(self.cpus), "-m", str(self.mem), "-nodefaults",
             "-no-user-config", "-display", "none", "-no-reboot",
             "-monitor", "none",
             "-chardev", "file,id=con,path=" + self.console(g).replace(",", ",,"),
             "-serial", "chardev:con", "-kernel", self.kernel, "-initrd",
             self.initrd, "-append", append.strip(),
             "-pidfile", os.path.join(d, "qemu.pid"),
             "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,"
             "readonly=on,multidevs=remap",
             "-virtfs", "local,path=%s,mount_tag=rpio,security_model=none" %
             os.path.join(d, "io").replace(",", ",,")]
        for r in range(self.rails):
            nic = "virtio-net-pci,netdev=n%d,mac=52:54:00:78:%02x:%02x,addr=%d" \
                % (r, r, g, 8 + r)
            if self.speed:
                nic += ",speed=%d,duplex=%s" % (self.speed, self.duplex)
            q += ["-netdev", "tap,id=n%d,ifname=tap%d.%d,script=no,"
                  "downscript=no,vhost=off" % (r, g, r), "-device", nic]
        # ip netns exec execs qemu itself: the process is qemu, which
        # dies with the harness (PR_SET_PDEATHSIG), even a SIGKILLed one;
        # the watchdog thread ends it after the fabric's --timeout.
        argv = ["ip", "netns", "exec", self.ns, *q]
        out = open(os.path.join(d, "qemu.out"), "w")
        self.procs[g] = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                         stdout=out, stderr=out,
                                         start_new_session=True,
                                         preexec_fn=die_with_parent)
        self.boot_t0 = getattr(self, "boot_t0", {})
        self.boot_t0[g] = time.monotonic()

    def wait_ready(self, g, retried=False):
        io = os.path.join(self.guest_dir(g), "io")
        while True:
            if os.path.exists(os.path.join(io, "ready")):
                return
            err = os.path.join(io, "setup-error")
            if os.path.exists(err):
                with open(err) as f:
                    raise FabricError("guest %d: setup failed: %s" %
                                      (g, f.read().strip()))
            if self.procs[g].poll() is not None:
                raise FabricError("guest %d: qemu exited %s during boot:\n%s"
                                  % (g, self.procs[g].returncode,
                                     self.tail(g)))
            if time.monotonic() - self.boot_t0[g] > self.boot_s:
                self.stop_qemu(g)
                if retried:
                    raise FabricError("guest %d hung in boot twice (%.0f s "
                                      "each):\n%s" % (g, self.boot_s,
                                                      self.tail(g)))
                sys.stderr.write("fabric: guest %d did not come up within "
                                 "%.0f s (a hung boot); booting it once "
                                 "more\n" % (g, self.boot_s))
                self.boot(g)
                return self.wait_ready(g, retried=True)
            time.sleep(0.1)

    def tail(self, g, n=25):
        text = ""
        for f in (os.path.join(self.guest_dir(g), "qemu.out"),
                  self.console(g)):
            try:
                with open(f, errors="replace") as fh:
                    text += "".join(fh.readlines()[-n:])
            except OSError:
                pass
        return text

    def stage2(self, g):
        """The script PID 1 runs in guest @g after switch_root (busybox sh):
        the NICs, the RDMA devices, then the agent."""
        rails = []
        for r in range(self.rails):
            a = addr(g, r)
            o = [int(x) for x in a.split(".")]
            rails.append((r, netdev(r), a, addr6(g, r), self.rdma_dev(r),
                          "ffff:%02x%02x:%02x%02x" % tuple(o)))
        hosts = "127.0.0.1 localhost\n" + "".join(
            "%s fab%d\n" % (addr(h), h) for h in range(1, self.n + 1))
        s = ["#!/run/rxe-run/busybox sh",
             "# Generated by tests/vm/fabric.py for guest %d." % g,
             "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
             "/sbin:/bin HOME=/root LANG=C.UTF-8",
             "bb() { /run/rxe-run/busybox \"$@\"; }",
             "poweroff_now() { bb sync; bb poweroff -f; "
             "echo o >/proc/sysrq-trigger; bb sleep 10; }",
             "fail() { echo \"fabric: guest setup failed: $*\"; "
             "echo \"$*\" >/run/rp/setup-error; poweroff_now; }",
             "bb mkdir -p /dev/pts /dev/shm",
             "bb mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts "
             "/dev/pts",
             "bb mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm",
             "bb hostname fab%d" % g,
             "printf %s " + sq(hosts) + " >/etc/hosts",
             "bb ip link set lo up || fail 'lo up'"]
        for r, dev, a, a6, rdev, tail in rails:
            s += ["bb ip addr add %s/24 dev %s || fail 'no NIC %s'" %
                  (a, dev, dev),
                  "bb ip link set %s up || fail '%s up'" % (dev, dev),
                  "/usr/sbin/ip -6 addr add %s/64 dev %s nodad || fail 'ipv6 on %s'" %
                  (a6, dev, dev)]
            if self.siw_ko:
                if r == 0:
                    s += ["/usr/sbin/modprobe libcrc32c || fail 'modprobe libcrc32c'",
                          "bb insmod %s || fail 'insmod siw'" %
                          sq(self.siw_ko)]
                s += ["rdma link add %s type siw netdev %s || fail "
                      "'rdma link add %s'" % (rdev, dev, rdev)]
            else:
                s += ["rdma link add %s type rxe netdev %s || fail "
                      "'rdma link add %s'" % (rdev, dev, rdev)]
            s += ["port=/sys/class/infiniband/%s/ports/1" % rdev,
                  "i=0",
                  "while :; do",
                  "  st=; read -r st 2>/dev/null <$port/state || :",
                  "  ok=",
                  "  case $st in *ACTIVE*) ok=1 ;; esac",
                  ]
            if not self.siw_ko:
                s += ["  if [ -n \"$ok\" ]; then ok=; for f in $port/gids/*; "
                      "do read -r v 2>/dev/null <$f || continue; "
                      "case $v in *:%s) ok=1 ;; esac; done; fi" % tail]
            s += ["  [ -n \"$ok\" ] && break",
                  "  i=$((i + 1))",
                  "  [ $i -lt 1000 ] || fail \"%s not ready: '$st'\"" % rdev,
                  "  bb usleep 20000",
                  "done"]
        s += ["for f in /etc/libibverbs.d/*.driver; do",
              "  case ${f##*/} in rxe.driver | siw.driver) ;; "
              "*) bb rm -f \"$f\" ;; esac",
              "done",
              "ulimit -l unlimited || fail 'ulimit -l'",
              "echo \"fabric: guest %d ready\" >/run/rp/ready" % g,
              "echo \"fabric: guest %d ready\"" % g]
        s += AGENT.splitlines()
        return "\n".join(s) + "\n"

    # -------------------------------------------------------------- jobs

    def alive(self, g):
        p = self.procs.get(g)
        return p is not None and p.poll() is None

    def job_env(self, g):
        env = {"RP_VM": "1", "RP_VM_ADDR": addr(g),
               "RP_VM_DEV": self.rdma_dev(0),
               "RP_FABRIC_GUEST": str(g), "RP_FABRIC_GUESTS": str(self.n),
               "RP_FABRIC_ADDRS": " ".join(addr(h) for h in
                                           range(1, self.n + 1)),
               "OMPI_ALLOW_RUN_AS_ROOT": "1",
               "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
               "PATH": os.environ.get("PATH", "/usr/bin:/bin") +
               ":/usr/sbin:/sbin"}
        for v in ("ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS"):
            if os.environ.get(v):
                env[v] = os.environ[v]
        env.update(self.env)
        return env

    def start(self, g, cmd, cwd=None, env=None):
        """Start shell command line @cmd on guest @g; a Job."""
        if not isinstance(g, int) or not 1 <= g <= self.n:
            raise FabricUsage("guest %r: there are guests 1 to %d" %
                              (g, self.n))
        if not self.alive(g):
            raise FabricError("guest %d is not running" % g)
        with self.lock:
            self.seq += 1
            jid = "j%d" % self.seq
        e = self.job_env(g)
        e.update(env or {})
        lines = ["export %s=%s" % (k, sq(v)) for k, v in sorted(e.items())]
        lines.append("cd %s || exit 125" % sq(cwd or os.getcwd()))
        lines.append(cmd)
        q = os.path.join(self.guest_dir(g), "io", "q")
        tmp = os.path.join(q, jid + ".tmp")
        with open(tmp, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.rename(tmp, os.path.join(q, jid + ".sh"))
        return Job(self, g, cmd, jid)

    def run(self, g, cmd, timeout=120, **kw):
        return self.start(g, cmd, **kw).wait(timeout)

    def run_all(self, cmd, timeout=120, guests=None, **kw):
        """@cmd on every guest at once (or on @guests): their Results."""
        jobs = [self.start(g, cmd, **kw) for g in
                (guests or range(1, self.n + 1))]
        end = time.monotonic() + timeout
        return [j.wait(max(1.0, end - time.monotonic())) for j in jobs]

    def must(self, g, cmd, timeout=120):
        r = self.run(g, cmd, timeout)
        if r.rc != 0:
            raise FabricError(r.describe())
        return r.out

    # ------------------------------------------------------------ links

    def qdisc(self, g, spec, rail=0, kind="netem"):
        """Replace the root qdisc of guest @g's NIC on @rail: netem SPEC or
        tbf SPEC (tc's own words). Bad words: FabricUsage with tc's
        complaint."""
        self.check_dev(g, rail)
        r = self.run(g, "tc qdisc replace dev %s root %s %s" %
                     (netdev(rail), kind, spec), timeout=60)
        if r.rc:
            raise FabricUsage("guest %d: tc refused %s %r: %s" %
                              (g, kind, spec, r.out.strip().splitlines()[-1]
                               if r.out.strip() else "exit %d" % r.rc))

    def netem(self, g, spec, rail=0):
        self.qdisc(g, spec, rail, "netem")

    def tbf(self, g, rate, rail=0, burst="256kb", latency="200ms"):
        """Shape guest @g's egress to @rate (tc's units: 200mbit). The
        bucket: TCP through 200mbit moved 152 Mbit/s with 64kb, 191 with
        256kb and 190 with 1mb (one boot each, 2026-12-02)."""
        self.qdisc(g, "rate %s burst %s latency %s" % (rate, burst, latency),
                   rail, "tbf")

    def tbf_in(self, g, rate, rail=0, burst="256kb", latency="200ms"):
        """Shape guest @g's ingress to @rate: a tbf on the bridge's tap
        into it, on this host, so that every sender to @g shares it (the
        receiver's link of an incast)."""
        self.check_dev(g, rail)
        self.sh("tc", "-n", self.ns, "qdisc", "replace", "dev",
                "tap%d.%d" % (g, rail), "root", "tbf", "rate", rate,
                "burst", burst, "latency", latency)

    def clear_in(self, g, rail=0):
        self.sh("tc", "-n", self.ns, "qdisc", "del", "dev",
                "tap%d.%d" % (g, rail), "root", check=False)

    def clear(self, g, rail=0):
        self.run(g, "tc qdisc del dev %s root 2>/dev/null; true" %
                 netdev(rail), timeout=60)

    def check_dev(self, g, rail):
        if not isinstance(g, int) or not 1 <= g <= self.n:
            raise FabricUsage("guest %r: there are guests 1 to %d" %
                              (g, self.n))
        if rail not in range(self.rails):
            raise FabricUsage("guest %d has no %s (%d rail%s)" %
                              (g, netdev(rail), self.rails,
                               "s" if self.rails > 1 else ""))

    def link(self, g, up, rail=0):
        """The guest's NIC up or down, as a pulled cable would be."""
        self.check_dev(g, rail)
        self.must(g, "ip link set %s %s" % (netdev(rail),
                                           "up" if up else "down"), 60)

    def hw_counters(self, g, rail=0):
        """Guest @g's RDMA device's hw_counters, {name: value}."""
        out = self.must(g, "cd /sys/class/infiniband/%s/ports/1/hw_counters"
                        " && grep -r . ." % self.rdma_dev(rail), 60)
        c = {}
        for line in out.splitlines():
            k, _, v = line.partition(":")
            if v.strip().isdigit():
                c[k.lstrip("./")] = int(v)
        return c

    def kill_guest(self, g):
        """SIGKILL guest @g's qemu: the machine is gone at once."""
        try:
            with open(os.path.join(self.guest_dir(g), "qemu.pid")) as f:
                os.kill(int(f.read().strip()), signal.SIGKILL)
        except (OSError, ValueError):
            pass
        try:
            self.procs[g].wait(10)
        except subprocess.TimeoutExpired:
            self.stop_qemu(g)

    # ------------------------------------------------------------ relay

    def guest_of(self, host):
        """The guest a name (fabG, 10.78.0.G, 10.79.0.G, G) names."""
        m = re.fullmatch(r"(?:fab)?(\d+)|10\.7[89]\.0\.(\d+)", host.strip())
        if m:
            g = int(m.group(1) or m.group(2))
            if 1 <= g <= self.n:
                return g
        return None

    def relay(self):
        """Requests of fabric-rsh in a guest: start the command on the
        guest it names, pass back the output and the exit status."""
        while not self.relay_stop.is_set():
            for g in range(1, self.n + 1):
                d = os.path.join(self.guest_dir(g), "io", "relay")
                try:
                    names = os.listdir(d)
                except OSError:
                    continue
                for name in names:
                    path = os.path.join(d, name)
                    rid = name.rsplit(".", 1)[0]
                    if name.endswith(".req"):
                        self.relay_start(g, d, rid, path)
                    elif name.endswith(".kill"):
                        j = self.relay_jobs.get((g, rid))
                        if j:
                            j.kill()
                        os.unlink(path)
            for key, j in list(self.relay_jobs.items()):
                if j.done() or not self.alive(j.guest):
                    self.relay_end(key, j)
            time.sleep(0.1)

    def relay_start(self, g, d, rid, path):
        with open(path, errors="replace") as f:
            host, _, cmd = f.read().partition("\n")
        os.unlink(path)
        target = self.guest_of(host)
        if target is None or not self.alive(target):
            self.relay_reply(d, rid, 255, "fabric-rsh: no running guest %r "
                             "on this fabric\n" % host)
            return
        self.relay_jobs[(g, rid)] = self.start(target, cmd.rstrip("\n"),
                                               cwd="/")

    def relay_end(self, key, j):
        del self.relay_jobs[key]
        r = j.wait(1)
        d = os.path.join(self.guest_dir(key[0]), "io", "relay")
        self.relay_reply(d, key[1], 255 if r.rc is None else r.rc, r.out)

    @staticmethod
    def relay_reply(d, rid, rc, out):
        with open(os.path.join(d, rid + ".out"), "w") as f:
            f.write(out)
        with open(os.path.join(d, rid + ".rc.tmp"), "w") as f:
            f.write("%d\n" % rc)
        os.rename(os.path.join(d, rid + ".rc.tmp"),
                  os.path.join(d, rid + ".rc"))

    # --------------------------------------------------------- tear-down

    def stop_qemu(self, g):
        p = self.procs.get(g)
        if p is None or p.poll() is not None:
            return
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except OSError:
            pass
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait(5)

    def down(self):
        """Power every guest off (killing any that does not go within a few
        seconds), delete the namespace with its bridges and taps, remove
        the work directory."""
        self.relay_stop.set()
        if self.work:
            for g in self.procs:
                if self.alive(g):
                    try:
                        open(os.path.join(self.guest_dir(g), "io",
                                          "poweroff"), "w").close()
                    except OSError:
                        pass
            end = time.monotonic() + 5
            for g in self.procs:
                while self.alive(g) and time.monotonic() < end:
                    time.sleep(0.05)
        for g in list(self.procs):
            self.stop_qemu(g)
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)
        if self.work:
            shutil.rmtree(self.work, ignore_errors=True)
            self.work = None


# The guest's agent, after its set-up: take job scripts from /run/rp/q, run
# each in a session of its own (so that a kill reaches every process it
# started), record its exit status. busybox's builtins only: a first exec of
# a host binary over 9p costs a tenth of a second under TCG.
AGENT = r'''
q=/run/rp/q
run_job() {
	bb setsid /bin/sh "$q/$1.run" </dev/null >"$q/$1.out" 2>&1 &
	echo $! >"$q/$1.pid.tmp"
	bb mv "$q/$1.pid.tmp" "$q/$1.pid"
	wait $!
	echo $? >"$q/$1.rc.tmp"
	bb mv "$q/$1.rc.tmp" "$q/$1.rc"
}
while :; do
	for f in "$q"/*.sh; do
		[ -e "$f" ] || continue
		id=${f##*/}
		id=${id%.sh}
		bb mv "$f" "$q/$id.run"
		run_job "$id" &
	done
	for f in "$q"/*.kill; do
		[ -e "$f" ] || continue
		id=${f##*/}
		id=${id%.kill}
		pid=
		read -r pid 2>/dev/null <"$q/$id.pid" || continue
		bb kill -KILL -- "-$pid" 2>/dev/null
		bb rm -f "$f"
	done
	[ -e /run/rp/poweroff ] && poweroff_now
	bb usleep 50000
done
'''


# ------------------------------------------------------------------ CLI

USAGE = "tests/vm/fabric [OPTIONS] STEP..."
DESCRIPTION = """\
Boots 2 to 4 qemu guests on one virtual L2 segment (10.78.0.G/24 and
fd78:0:0::G/64 on eth0, Soft-RoCE rxe0 on it; with --rails 2 a second
segment, 10.79.0.G on eth1 with rxe1), runs the steps in order, prints each
step's output prefixed with its guest, and takes everything down again.
Exit status: the first failing step's; 0 when all passed; 2 bad usage; 77 a
requirement missing here; 124 a step timed out; 125 the fabric failed.

A STEP is G:COMMAND (run COMMAND, a shell command line, on guest G and wait
for it; G may be "all"), G&:COMMAND (start it in the background: a server;
ended when the fabric goes down), or G?:REGEX (wait until the output of the
last background step of guest G matches REGEX).

Example, rdmaperf between two guests:
  tests/vm/fabric '2&:build/rdmaperf -s -a 10.78.0.2' '2?:listening' \\
      '1:build/rdmaperf -c -a 10.78.0.2 -o W -S 64K -q 16 -t 3'
"""


class OneLineParser(argparse.ArgumentParser):
    """Bad usage is one line and exit status 2, as rdmaperf's own."""

    def error(self, message):
        sys.stderr.write("fabric: %s (--help for usage)\n" % message)
        sys.exit(2)


def parse_args(argv):
    p = OneLineParser(prog="tests/vm/fabric", usage=USAGE,
                      description=DESCRIPTION,
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--guests", type=int, default=2,
                   help="how many guests (2 to 4, default 2)")
    p.add_argument("--cpus", type=int, default=1,
                   help="vCPUs a guest (default 1)")
    p.add_argument("--mem", type=int, default=384,
                   help="MiB a guest (default 384)")
    p.add_argument("--rails", type=int, default=1,
                   help="NICs a guest, each on a segment of its own (1 or 2)")
    p.add_argument("--siw", metavar="KO",
                   help="Soft-iWARP (siwR) from KO instead of Soft-RoCE")
    p.add_argument("--speed", type=int, metavar="MBIT",
                   help="the NICs' reported speed in Mb/s (virtio-net's "
                   "speed property)")
    p.add_argument("--duplex", default="full", help="full or half")
    p.add_argument("--netem", action="append", default=[],
                   metavar="G[:DEV]=SPEC",
                   help="netem on guest G's DEV (eth0): loss 1%%, "
                   "delay 2ms reorder 25%% 50%%, ...")
    p.add_argument("--tbf", action="append", default=[],
                   metavar="G[:DEV]=RATE",
                   help="shape guest G's DEV egress to RATE (200mbit)")
    p.add_argument("--step-timeout", type=float, default=300,
                   help="seconds a waited-for step may take (default 300)")
    p.add_argument("--timeout", type=float, default=1800,
                   help="seconds the whole fabric may live (default 1800)")
    p.add_argument("--log-dir", help="keep each guest's console here")
    p.add_argument("steps", nargs="*")
    a = p.parse_args(argv)
    if not a.steps:
        p.error("no step given")
    return a


def parse_shape(spec, n, what):
    m = re.fullmatch(r"(all|\d+)(?::(eth\d+))?=(.+)", spec)
    if not m:
        raise FabricUsage("--%s %r: want G[:DEV]=SPEC" % (what, spec))
    gs = range(1, n + 1) if m.group(1) == "all" else [int(m.group(1))]
    dev = m.group(2) or "eth0"
    return gs, dev, m.group(3)


def rail_of(fab, g, dev):
    r = int(dev[3:])
    fab.check_dev(g, r)
    return r


def parse_step(step, n):
    m = re.fullmatch(r"(all|\d+)([&?]?):(.*)", step, re.S)
    if not m or not m.group(3).strip():
        raise FabricUsage("step %r: want G:COMMAND, G&:COMMAND or G?:REGEX"
                          % step)
    g = m.group(1)
    if g != "all" and not 1 <= int(g) <= n:
        raise FabricUsage("step %r: there are guests 1 to %d" % (step, n))
    if g == "all" and m.group(2):
        raise FabricUsage("step %r: 'all' only waits for a command" % step)
    return g, m.group(2), m.group(3)


def show(r):
    for line in r.out.rstrip("\n").splitlines():
        print("[%d] %s" % (r.guest, line))
    print("fabric: guest %d: exit %s in %.1f s" % (r.guest, r.rc, r.seconds),
          flush=True)


def cli(argv):
    a = parse_args(argv)
    steps = [parse_step(s, a.guests) for s in a.steps]
    shapes = [("netem", s) for s in a.netem] + [("tbf", s) for s in a.tbf]
    parsed = [(k,) + parse_shape(s, a.guests, k) for k, s in shapes]
    for _, gs, _, _ in parsed:
        for g in gs:
            if not 1 <= g <= a.guests:
                raise FabricUsage("guest %d: there are guests 1 to %d" %
                                  (g, a.guests))
    with Fabric(guests=a.guests, cpus=a.cpus, mem=a.mem, rails=a.rails,
                siw_ko=a.siw, speed=a.speed, duplex=a.duplex,
                timeout=a.timeout, log_dir=a.log_dir) as fab:
        print("fabric: %d guests up in %.1f s (%s)" %
              (fab.n, fab.boot_seconds, ", ".join(
                  "fab%d %s %s%s" % (g, addr(g), fab.rdma_dev(0),
                                     " %s %s" % (addr(g, 1), fab.rdma_dev(1))
                                     if fab.rails > 1 else "")
                  for g in range(1, fab.n + 1))), flush=True)
        for kind, gs, dev, spec in parsed:
            for g in gs:
                r = rail_of(fab, g, dev)
                if kind == "netem":
                    fab.netem(g, spec, r)
                else:
                    fab.tbf(g, spec, r)
        bg = {}
        for g, mode, text in steps:
            if mode == "&":
                bg[int(g)] = fab.start(int(g), text)
                continue
            if mode == "?":
                j = bg.get(int(g))
                if not j:
                    raise FabricUsage("step %s?: guest %s has no background "
                                      "step before it" % (g, g))
                if not j.wait_output(text, a.step_timeout):
                    show(j.wait(1))
                    print("fabric: guest %s: %r never appeared" % (g, text))
                    return 124
                continue
            if g == "all":
                results = fab.run_all(text, a.step_timeout)
            else:
                results = [fab.run(int(g), text, a.step_timeout)]
            bad = 0
            for r in results:
                show(r)
                if r.rc != 0 and not bad:
                    bad = 125 if r.rc is None else r.rc
            if bad:
                return bad
        for j in bg.values():
            j.kill()
    return 0


def interrupted(_signum, _frame):
    raise KeyboardInterrupt


def main():
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)
    try:
        sys.exit(cli(sys.argv[1:]))
    except FabricUsage as e:
        print("fabric: %s" % e, file=sys.stderr)
        sys.exit(2)
    except FabricSkip as e:
        print("fabric: skipped: %s" % e, file=sys.stderr)
        sys.exit(EXIT_SKIP)
    except (FabricError, OSError) as e:
        print("fabric: %s" % e, file=sys.stderr)
        sys.exit(125)
    except KeyboardInterrupt:
        print("fabric: interrupted; the guests and links are gone",
              file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
