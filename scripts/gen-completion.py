#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Shell completion for rdmaperf, made from the binary's own --help.

    gen-completion.py RDMAPERF --bash FILE [--zsh FILE]
    gen-completion.py RDMAPERF --dump      (what it read, as JSON)

It runs `RDMAPERF --help`, reads every option row (-s, --long META help),
the subcommands its usage names (rdmaperf doctor, rdmaperf diff, ...) and
each one's `--help` (option rows, or [-d DEV] [--json] in its usage), and
writes a bash completion (for bash-completion) and a zsh one. The values
of an option come from the same text: -x's from "Transports built in",
an option whose help begins "A|B:" or is a list "W|write, R|read, ..."
completes those words, a DEV the devices of /sys/class/infiniband, a
HOST or ADDR host names, a FILE or PATH (or a name with a dot) files.
The build runs it (cmake/dist.cmake), so the completion cannot drift from
the binary; tests/pkg/completion.sh checks it against --help again and
drives the bash one.
"""
import json
import re
import subprocess
import sys

ROW = re.compile(r"^  (?:-(?P<short>\w), +|\s*)--(?P<long>[a-z0-9][a-z0-9-]*)"
                 r"(?: (?P<meta>[A-Z][A-Za-z0-9_.,:\[\]|]*))?"
                 r"(?:\s+(?P<help>\S.*))?$")
BRACKET = re.compile(r"\[(?:-(?P<short>\w)(?:\|--(?P<long1>[a-z0-9-]+))?|"
                     r"--(?P<long2>[a-z0-9][a-z0-9-]*))"
                     r"(?: (?P<meta>[A-Z][A-Za-z0-9_.,:]*))?\]")
SUBCMD = re.compile(r"\brdmaperf ([a-z][a-z0-9-]*)\b")
TRANSPORTS = re.compile(r"^Transports built in[^:]*:(.*)$", re.M)
WORDS = re.compile(r"^\w+(?:(?:\||, )\w+)+$")


def run_help(binary, *args):
    p = subprocess.run([binary, *args, "--help"], capture_output=True,
                       text=True, timeout=30)
    if p.returncode != 0 or not p.stdout:
        sys.exit("gen-completion: %s %s --help: exit %d: %s" %
                 (binary, " ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout


def values_of(help_text):
    """The words an option takes when its help lists them: "busy|event:
    ..." or "W|write, R|read, S|send"; else []."""
    head = (help_text or "").split(":")[0].strip()
    if not WORDS.match(head):
        return []
    return [w for w in re.split(r"\||, ", head) if w]


def kind_of(opt, transports):
    """What completes the value of @opt: ("words", [...]), ("list",
    [...]) for a comma-separated list, or devices, hosts, files, none."""
    meta = opt["meta"]
    if meta is None:
        return None
    words = values_of(opt["help"])
    if opt["long"] == "transport":
        return ("list", transports)
    if words:
        return ("words", words)
    if meta == "DEV":
        return ("devices",)
    if meta in ("HOST", "ADDR"):
        return ("hosts",)
    if meta in ("FILE", "PATH", "CONFIG", "DIR") or "." in meta:
        return ("files",)
    return ("none",)


def parse_rows(text):
    opts = []
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            opts.append({"short": m["short"], "long": m["long"],
                         "meta": m["meta"], "help": m["help"] or ""})
    return opts


def parse_brackets(text, opts):
    seen = {o["long"] or o["short"] for o in opts}
    for m in BRACKET.finditer(text):
        long = m["long1"] or m["long2"]
        if (long or m["short"]) in seen:
            continue
        seen.add(long or m["short"])
        opts.append({"short": m["short"], "long": long, "meta": m["meta"],
                     "help": ""})
    return opts


def takes_operands(text, name):
    """Whether @name's usage names operands (diff OLD.json NEW.json):
    an upper-case word outside its [options]."""
    m = re.search(r"rdmaperf %s\b(.*)" % name, text)
    return bool(m and re.search(r"\b[A-Z][A-Z.a-z]+\b",
                                re.sub(r"\[[^]]*\]", "", m.group(1))))


def read_binary(binary):
    text = run_help(binary)
    usage = text.split("\n\n")[0]
    t = TRANSPORTS.search(text)
    transports = []
    for name in (t.group(1).split() if t else []):
        # file:PATH: "file:" and a path after it; ofi[:PROVIDER]: "ofi"
        name = re.sub(r"\[:[A-Z]+\]$", "", name)
        transports.append(name[:-len("PATH")] if name.endswith(":PATH")
                          else name)
    cmds = {"": parse_rows(text)}
    operands = []
    for name in SUBCMD.findall(usage):
        if name in cmds:
            continue
        sub = run_help(binary, name)
        cmds[name] = parse_brackets(sub, parse_rows(sub))
        if takes_operands(sub, name):
            operands.append(name)
    for opts in cmds.values():
        for o in opts:
            o["kind"] = kind_of(o, transports)
    return {"transports": transports, "commands": cmds,
            "operands": operands}


def flags(o):
    return [f for f in (o["short"] and "-" + o["short"],
                        o["long"] and "--" + o["long"]) if f]


def sh_words(ws):
    return " ".join(ws)


def bash_value_case(opts):
    """The case arms completing the value after each option that takes
    one."""
    arms, typed = [], []
    for o in opts:
        k = o["kind"]
        if not k:
            continue
        if k[0] == "none":  # a number, a size: nothing to offer
            typed += flags(o)
            continue
        pat = "|".join(flags(o))
        if k[0] == "words":
            body = 'COMPREPLY=($(compgen -W "%s" -- "$cur"))' % \
                sh_words(k[1])
        elif k[0] == "list":
            body = '_rdmaperf_list "%s"' % sh_words(k[1])
        elif k[0] == "devices":
            body = 'COMPREPLY=($(compgen -W "$(_rdmaperf_devices)" ' \
                '-- "$cur"))'
        elif k[0] == "hosts":
            body = '_known_hosts_real -- "$cur"'
        else:
            body = "_filedir"
        arms.append("\t\t%s)\n\t\t\t%s\n\t\t\treturn\n\t\t\t;;" %
                    (pat, body))
    if typed:
        arms.append("\t\t%s)\n\t\t\treturn # typed: nothing to offer\n"
                    "\t\t\t;;" % "|".join(typed))
    return "\n".join(arms)


BASH_HEAD = r'''# bash completion for rdmaperf %(version)s
# Generated by scripts/gen-completion.py from `rdmaperf --help` (and each
# subcommand's --help) at build time: do not edit, it is remade.
# Needs bash-completion (_init_completion, _filedir, _known_hosts_real).

# The RDMA devices of this host, for -d/--device (under $RP_SYSFS_ROOT
# where it is set, as rdmaperf reads them).
_rdmaperf_devices()
{
	local d
	for d in "${RP_SYSFS_ROOT-}"/sys/class/infiniband/*; do
		[[ -e $d ]] && printf '%%s\n' "${d##*/}"
	done
}

# A comma-separated list of $1's words (-x rdma,tcp,file:PATH): complete
# the last item; file: is followed by a path.
_rdmaperf_list()
{
	local head= last=$cur
	if [[ $cur == *,* ]]; then
		head=${cur%%,*},
		last=${cur##*,}
	fi
	if [[ $last == *:* ]]; then
		local kind=${last%%%%:*} path=${last#*:} f
		COMPREPLY=()
		while IFS= read -r f; do
			[[ -d $f ]] && f+=/
			COMPREPLY+=("$head$kind:$f")
		done < <(compgen -f -- "$path")
	else
		COMPREPLY=($(compgen -P "$head" -W "$1" -- "$last"))
	fi
	[[ ${COMPREPLY[0]-} == *[:,/] ]] && compopt -o nospace
	__ltrim_colon_completions "$cur"
}

_rdmaperf()
{
	local cur prev words cword split
	_init_completion -s -n : || return

	local sub=
	case ${words[1]-} in
	%(subpat)s) ((cword > 1)) && sub=${words[1]} ;;
	esac
'''

BASH_TAIL = r'''}
complete -F _rdmaperf rdmaperf
'''


def bash_section(name, opts, subs, operands):
    all_flags = sh_words(f for o in opts for f in flags(o))
    lines = ["\t%s)" % (name or "''"),
             "\t\tcase $prev in",
             bash_value_case(opts),
             "\t\tesac",
             "\t\t$split && return",
             '\t\tif [[ $cur == -* ]]; then',
             '\t\t\tCOMPREPLY=($(compgen -W "%s" -- "$cur"))' % all_flags,
             "\t\t\treturn",
             "\t\tfi"]
    if not name:
        lines += ["\t\tif ((cword == 1)); then",
                  '\t\t\tCOMPREPLY=($(compgen -W "%s %s" -- "$cur"))' %
                  (sh_words(subs), all_flags),
                  "\t\t\treturn",
                  "\t\tfi"]
    elif operands:  # files: diff's documents, a config
        lines += ["\t\t_filedir"]
    lines.append("\t\t;;")
    return "\n".join(lines)


def gen_bash(info, version):
    subs = [n for n in info["commands"] if n]
    out = BASH_HEAD % {"version": version, "subpat": "|".join(subs)}
    out += "\n\tcase $sub in\n"
    for name, opts in info["commands"].items():
        out += bash_section(name, opts, subs,
                            name in info["operands"]) + "\n"
    out += "\tesac\n" + BASH_TAIL
    return out


def zq(s):
    """@s inside a zsh _arguments spec in single quotes: no [ ] : ' \\."""
    s = s.replace("\\", "\\\\").replace("'", "'\\''")
    return s.replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")


def zsh_action(o):
    k = o["kind"]
    if not k:
        return ""
    meta = zq(o["meta"].lower())
    act = {"words": lambda: "(%s)" % " ".join(zq(w) for w in k[1]),
           "list": lambda: "_sequence compadd - %s" %
           " ".join(zq(w) for w in k[1]),
           "devices": lambda: "_rdmaperf_devices",
           "hosts": lambda: "_hosts",
           "files": lambda: "_files"}.get(k[0], lambda: " ")()
    return ":%s:%s" % (meta, act)


def zsh_specs(opts):
    specs = []
    for o in opts:
        f = flags(o)
        desc = "[%s]" % zq(o["help"]) if o["help"] else ""
        act = zsh_action(o)
        if len(f) == 2:
            specs.append("'(%s)'{%s}'%s%s'" % (" ".join(f), ",".join(f),
                                                desc, act))
        else:
            specs.append("'%s%s%s'" % (f[0], desc, act))
    return specs


def gen_zsh(info, version):
    subs = [n for n in info["commands"] if n]
    out = ["#compdef rdmaperf",
           "# zsh completion for rdmaperf %s" % version,
           "# Generated by scripts/gen-completion.py from `rdmaperf --help`"
           " at build time: do not edit.",
           "",
           "_rdmaperf_devices() {",
           "\tlocal -a devs",
           "\tdevs=(${RP_SYSFS_ROOT-}/sys/class/infiniband/*(N:t))",
           "\tcompadd -a devs",
           "}",
           "",
           "_rdmaperf() {",
           "\tif (( CURRENT > 2 )); then",
           "\t\tcase $words[2] in"]
    for name in subs:
        out += ["\t\t%s)" % name,
                "\t\t\tshift words; (( CURRENT-- ))",
                "\t\t\t_arguments -s : \\"]
        out += ["\t\t\t\t%s \\" % s for s in
                zsh_specs(info["commands"][name])]
        if name in info["operands"]:
            out += ["\t\t\t\t'*:file:_files' \\"]
        out += ["\t\t\t\t&& return", "\t\t\treturn 1", "\t\t\t;;"]
    out += ["\t\tesac", "\tfi",
            "\t_arguments -s : \\"]
    out += ["\t\t%s \\" % s for s in zsh_specs(info["commands"][""])]
    out += ["\t\t'1::subcommand:(%s)'" % " ".join(subs), "}", "",
            '_rdmaperf "$@"', ""]
    return "\n".join(out)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__.split("\n\n")[1])
    binary = argv[1]
    info = read_binary(binary)
    v = subprocess.run([binary, "--version"], capture_output=True,
                       text=True, timeout=30).stdout.split()
    version = v[-1] if v else "?"
    args = argv[2:]
    if args == ["--dump"]:
        json.dump(info, sys.stdout, indent=1)
        return
    while args:
        what, path = args[0], args[1]
        args = args[2:]
        text = {"--bash": gen_bash, "--zsh": gen_zsh}[what](info, version)
        with open(path, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main(sys.argv)
