#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pkg.completion: the bash completion the build made, against the binary.

    completion.py RDMAPERF COMPLETION_DIR SYSFS_FIXTURE

Reads --help (and each subcommand's --help) itself, with regular
expressions of its own, then drives the completion function as bash does
on a TAB (COMP_WORDS split at '=' and ':' as readline splits them,
COMP_LINE, COMP_POINT, COMP_CWORD) under bash-completion, and checks:
every option --help names is offered, for the program and each
subcommand; the subcommands are offered first; -o's words are exactly
those the binary accepts (its own error message lists them) and each is
accepted; --wait's, -x's likewise (a list after a comma, file:PATH with
files); --op=VALUE; -d's from /sys/class/infiniband (RP_SYSFS_ROOT set to
a fixture); files for --plot and diff's documents; nothing for a number;
and that bash-completion's loader finds the file by the command's name.
The zsh completion: every option in it, its syntax, and lines typed
with a TAB into an interactive zsh on a pseudo terminal (completion.zsh).
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"
failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)


def skip(why):
    print("pkg.completion: SKIP: " + why)
    sys.exit(1 if os.environ.get("CI") == "true" else 77)


def run(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True,
                          timeout=30)


def words_of(line):
    """COMP_WORDS as bash makes them: split at blanks, then '=' and ':'
    (COMP_WORDBREAKS) become words of their own."""
    out = []
    for tok in line.split():
        out += re.findall(r"[=:]+|[^=:]+", tok)
    if line.endswith(" "):
        out.append("")
    return out


def complete(script, cases, env):
    """Each case's COMPREPLY, from one bash."""
    body = ["set +o errexit", "source %s" % BASH_COMPLETION,
            "source %s" % shlex.quote(script)]
    for i, line in enumerate(cases):
        w = words_of(line)
        body += ["COMP_WORDS=(%s)" % " ".join(shlex.quote(x) for x in w),
                 "COMP_CWORD=%d" % (len(w) - 1),
                 "COMP_LINE=%s" % shlex.quote(line),
                 "COMP_POINT=%d" % len(line),
                 "COMPREPLY=()",
                 '_rdmaperf rdmaperf "${COMP_WORDS[COMP_CWORD]}" '
                 '"${COMP_WORDS[COMP_CWORD-1]}"',
                 "printf '@@%d\\n'" % i,
                 "printf '%s\\n' \"${COMPREPLY[@]}\""]
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c",
                        "\n".join(body)], capture_output=True, text=True,
                       env=env, timeout=60)
    if p.returncode:
        sys.exit("bash: exit %d: %s" % (p.returncode, p.stderr))
    got, cur = {}, None
    for ln in p.stdout.splitlines():
        m = re.match(r"^@@(\d+)$", ln)
        if m:
            cur = int(m.group(1))
            got[cur] = []
        elif cur is not None and ln:
            got[cur].append(ln)
    return [got.get(i, []) for i in range(len(cases))]


def own_lines(text, subs):
    """@text without prose and without the usage lines of @subs (the
    program's usage names diff's --threshold): its usage lines and its
    option rows."""
    keep, mine, in_usage = [], True, True
    for ln in text.splitlines():
        if not ln.strip() or not re.match(r"^(usage:|Usage:|\s)", ln):
            in_usage = False  # prose: it may name other commands' options
        m = re.match(r"^(?:usage:|Usage:)?\s+(?:mpirun \S+ \S+ )?"
                     r"rdmaperf (\S+)", ln)
        if in_usage and m:
            mine = m.group(1) not in subs
        if (in_usage and mine) or re.match(r"^\s+--?\w", ln):
            keep.append(ln)
    return "\n".join(keep)


def options_in(text):
    """Every --long and -s of @text (own_lines of a help)."""
    longs = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))
    shorts = set(re.findall(r"^\s+(-\w),", text, re.M))
    shorts |= set(re.findall(r"\[(-\w)[] |]", text))
    return longs, shorts


def main():
    binary, compdir, sysfs = sys.argv[1:4]
    script = os.path.join(compdir, "rdmaperf")
    if not os.path.exists(BASH_COMPLETION):
        skip("bash-completion is not installed")
    help_text = run(binary, "--help").stdout
    usage = help_text.split("\n\n")[0]
    subs = re.findall(r"^\s+rdmaperf ([a-z][a-z0-9-]*)\b", usage, re.M)
    check(len(subs) >= 2, "--help's usage names subcommands: %s" % subs)

    tmp = tempfile.mkdtemp(prefix="rp-compl-")
    for f in ("data", "plot.svg", "old.json"):
        open(os.path.join(tmp, f), "w").close()
    env = dict(os.environ, RP_SYSFS_ROOT=sysfs)

    cases, expect = [], []

    def case(line, what, test):
        cases.append(line)
        expect.append((what, test))

    longs, shorts = options_in(own_lines(help_text, subs))
    case("rdmaperf --", "every --long of --help (%d)" % len(longs),
         lambda r: (longs <= set(r), sorted(longs - set(r))))
    case("rdmaperf -", "every short flag of --help (%d)" % len(shorts),
         lambda r: (shorts <= set(r), sorted(shorts - set(r))))
    case("rdmaperf ", "the subcommands first",
         lambda r: (set(subs) <= set(r), r[:6]))
    for s in subs:
        sl, ss = options_in(own_lines(run(binary, s, "--help").stdout,
                                      []))
        case("rdmaperf %s --" % s, "%s: every --long of its help %s" %
             (s, sorted(sl)),
             lambda r, sl=sl: (sl <= set(r), sorted(sl - set(r))))
        if ss:
            case("rdmaperf %s -" % s, "%s: its short flags %s" %
                 (s, sorted(ss)),
                 lambda r, ss=ss: (ss <= set(r), sorted(ss - set(r))))

    # -o: exactly what the binary's own error says it accepts
    err = run(binary, "-o", "bogus").stderr
    m = re.search(r"accepted (.*)$", err, re.M)
    ops = set(re.split(r"\||, ", m.group(1).strip())) if m else set()
    check(bool(ops), "rdmaperf -o bogus lists the operations: %s" %
          sorted(ops))
    case("rdmaperf -o ", "-o: the operations the binary accepts",
         lambda r: (set(r) == ops, sorted(r)))
    case("rdmaperf --op=wr", "--op=wr: write, write_imm",
         lambda r: (set(r) == {"write", "write_imm"}, r))
    case("rdmaperf --wait ", "--wait: busy, event",
         lambda r: (set(r) == {"busy", "event"}, r))
    tm = re.search(r"^Transports built in[^:]*:(.*)$", help_text, re.M)
    # file:PATH is offered as "file:", ofi[:PROVIDER] as "ofi"
    xs = {re.sub(r"\[:[A-Z]+\]$", "", t.replace(":PATH", ":"))
          for t in tm.group(1).split()}
    case("rdmaperf -x ", "-x: the transports built in %s" % sorted(xs),
         lambda r: (set(r) == xs, r))
    case("rdmaperf -x rdma,t", "-x rdma,t: rdma,tcp",
         lambda r: (r == ["rdma,tcp"], r))
    case("rdmaperf -x tcp,file:%s/da" % tmp, "-x tcp,file:DIR/da: the file",
         lambda r: (r == ["%s/data" % tmp], r))
    devs = set(os.listdir(os.path.join(sysfs, "sys/class/infiniband")))
    case("rdmaperf -d ", "-d: /sys/class/infiniband's %s" % sorted(devs),
         lambda r: (set(r) == devs, r))
    case("rdmaperf doctor -d ", "doctor -d: the devices",
         lambda r: (set(r) == devs, r))
    case("rdmaperf --plot %s/pl" % tmp, "--plot: files",
         lambda r: (r == ["%s/plot.svg" % tmp], r))
    case("rdmaperf diff %s/ol" % tmp, "diff's documents: files",
         lambda r: (r == ["%s/old.json" % tmp], r))
    case("rdmaperf -S ", "-S: a size is typed, nothing offered",
         lambda r: (r == [], r))

    for (what, test), reply in zip(expect, complete(script, cases, env)):
        ok, shown = test(reply)
        check(ok, what + ("" if ok else ": got %s" % (shown,)))

    # every word offered is one the binary takes
    for flag, vals in (("-o", ops), ("--wait", {"busy", "event"}),
                       ("-x", xs)):
        for v in sorted(vals):
            arg = v + tmp + "/data" if v.endswith(":") else v
            p = run(binary, flag, arg, "--help")
            check(p.returncode == 0, "rdmaperf %s %s accepted" % (flag, v))
    check(run(binary, "--wait", "bogus", "--help").returncode == 2,
          "rdmaperf --wait bogus refused (the check above can fail)")

    # bash-completion's loader finds it by the command's name
    user = os.path.join(tmp, "user", "completions")
    os.makedirs(user)
    os.symlink(os.path.abspath(script), os.path.join(user, "rdmaperf"))
    p = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c",
         "source %s; _completion_loader rdmaperf; complete -p rdmaperf" %
         BASH_COMPLETION], capture_output=True, text=True, timeout=30,
        env=dict(env, BASH_COMPLETION_USER_DIR=os.path.join(tmp, "user")))
    check("-F _rdmaperf rdmaperf" in p.stdout,
          "bash-completion loads it on demand: %s" % p.stdout.strip())

    # zsh: its syntax, and every option of --help in it
    zfile = os.path.join(compdir, "_rdmaperf")
    ztext = open(zfile).read()
    missing = sorted(o for o in longs if o not in ztext)
    check(not missing, "zsh: every --long of --help%s" %
          (": missing %s" % missing if missing else ""))
    if subprocess.run(["sh", "-c", "command -v zsh"],
                      capture_output=True).returncode != 0:
        skip("zsh is not installed")
    p = subprocess.run(["zsh", "-n", zfile], capture_output=True, text=True)
    check(p.returncode == 0, "zsh -n _rdmaperf: %s" %
          (p.stderr.strip() or "clean"))
    # and typed: each line with a TAB completes to its one match
    zcases = ["rdmaperf --wai", "--wait", "rdmaperf --wait b", "busy",
              "rdmaperf -o fetch", "fetch_add", "rdmaperf -x rso", "rsocket",
              "rdmaperf dif", "diff", "rdmaperf diff --thr", "--threshold",
              "rdmaperf doctor --cp", "--cpu"]
    if len(devs) == 1:
        zcases += ["rdmaperf -d %s" % min(devs)[:2], min(devs)]
    p = subprocess.run(["zsh", "-f", os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "completion.zsh"), compdir, *zcases],
        capture_output=True, text=True, env=env, timeout=120)
    for ln in p.stdout.splitlines():
        print(ln)
        if ln.startswith("FAIL"):
            failures.append(ln)
    check(p.returncode == 0, "zsh typed completion (%d cases)" %
          (len(zcases) // 2))
    subprocess.run(["rm", "-rf", tmp])
    if failures:
        sys.exit("pkg.completion: %d failed" % len(failures))
    print("pkg.completion: PASS")


if __name__ == "__main__":
    main()
