#!/usr/bin/python3
# gst-cuda-vision: run every gst-launch-1.0 line of the docs, headless
# (meson test pipelines-doc-commands, suites cpu and pipelines).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Run the gst-launch-1.0 command lines of the docs, headless.

Usage: doc-commands.py [--srcdir DIR] [--build-dir DIR] [--workdir DIR]
                       [--frames N] [--timeout S] [--list] [FILE...]

FILEs (default: README.md, pipelines/README.md, docs/*.md and the "Example
launch lines" of plugin/gstcuda*.c) are searched for gst-launch-1.0 command
lines: in Markdown, lines of code blocks and `inline code` that start with
gst-launch-1.0 (after VAR=value assignments, such as
GST_PLUGIN_PATH=build/plugin); in C, the lines of the |[ ... ]| blocks of
the SECTION comments. A line ending in a backslash continues on the next.
Each command runs in its own process, in the order of the files, from
WORKDIR (default: a temporary folder) which holds `build` (a link to the
build folder, so that GST_PLUGIN_PATH=build/plugin finds the plugin) and an
empty `out/` (where the docs' examples write; a line may use what an
earlier line of its file wrote there). Lines that set no GST_PLUGIN_PATH
get the build's plugin.

Changes made so that every line runs headless and ends within seconds,
each printed with the line:
  - autovideosink, xvimagesink, ximagesink, glimagesink, waylandsink,
    kmssink -> fakesink (properties other than name, sync, async dropped);
  - v4l2src (and its properties) -> videotestsrc is-live=true;
  - at most N frames (--frames, default 5): num-buffers=N on videotestsrc
    and imagefreeze; a pad probe on the video pads of decodebin,
    uridecodebin, decodebin3 and parsebin passes N frames, then sends EOS
    (as pipelines/cvpipe.py does; identity is not used);
  - the gst-launch-1.0 options (-e, -m, -v, -q...) are dropped: the line
    runs until EOS, an error or the timeout (--timeout, default 120 s);
  - without a usable GPU, backend=cuda -> backend=cpu;
  - when an NVIDIA element (nvcodec: nvh264dec, cudadownload...) is missing
    the line is SKIPPED, visibly, and then also run with those elements
    emulated on the CPU (nvh264dec -> avdec_h264, cudaupload and
    cudadownload -> identity, memory:CUDAMemory caps -> system memory): the
    rest of the line must work.
After a run every filesink's file must exist and not be empty, and no GLib
warning or critical may have been printed (e.g. an out-of-range property
value, which gst-launch-1.0 only warns about).

For each line it prints the file and line number, the command as written,
what ran, and ok / SKIP / FAIL with the reason (the GStreamer error). The
last line is "doc-commands: N lines: N ok, N skipped, N failed"; exit
status 1 if a line failed or none was found.
"""

import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(SRC, "pipelines"))
import cvpipe  # noqa: E402 (pipelines/cvpipe.py)

DISPLAY_SINKS = {"autovideosink", "xvimagesink", "ximagesink",
                 "glimagesink", "waylandsink", "kmssink", "fpsdisplaysink"}
LIMITED_SOURCES = {"videotestsrc", "imagefreeze"}
DECODERS = {"decodebin", "uridecodebin", "decodebin3", "uridecodebin3",
            "parsebin"}
NVCODEC = {"nvh264dec": "avdec_h264", "nvh265dec": "avdec_h265",
           "nvjpegdec": "jpegdec", "cudaupload": "identity",
           "cudadownload": "identity"}
COMMAND = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*gst-launch-1\.0\s")


# ---- extraction ----------------------------------------------------------------

def join_continued(lines, i, strip):
    """The command starting at lines[i], with its backslash continuations;
    returns (text, index of the next line)."""
    parts = []
    while i < len(lines):
        s = strip(lines[i])
        i += 1
        if s.endswith("\\"):
            parts.append(s[:-1].strip())
            continue
        parts.append(s)
        break
    return " ".join(p for p in parts if p), i


def extract_markdown(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    found = []
    prose = []  # (line number, text) outside code blocks, for inline code
    fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fence = not fence
            i += 1
            continue
        s = line.strip()
        if s.startswith("$ "):
            s = s[2:]
        if COMMAND.match(s) and (fence or line.startswith("    ") or
                                 not line.lstrip().startswith("`")):
            start = i + 1
            text, i = join_continued(
                lines, i, lambda x: x.strip().removeprefix("$ "))
            found.append((start, text))
            continue
        if not fence:
            prose.append((i + 1, line))
        i += 1
    # inline code spans, which may run over several lines of a paragraph
    text = "\n".join(t for _, t in prose)
    numbers = [n for n, _ in prose]
    for m in re.finditer(r"`([^`]+)`", text):
        span = " ".join(m.group(1).split())
        if COMMAND.match(span + " ") and "!" in span:
            line_no = numbers[text.count("\n", 0, m.start())]
            found.append((line_no, span))
    return sorted(found)


def extract_c(path):
    """The |[ ... ]| blocks of the comments: lines " * gst-launch-1.0 ..."."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    found = []
    block = False
    i = 0

    def strip(x):
        return re.sub(r"^\s*\*\s?", "", x).strip()
    while i < len(lines):
        s = strip(lines[i])
        if s.startswith("|["):
            block = True
        elif s.startswith("]|"):
            block = False
        elif block and COMMAND.match(s):
            start = i + 1
            text, i = join_continued(lines, i, strip)
            found.append((start, text))
            continue
        i += 1
    return found


def default_files(src):
    files = ["README.md", "pipelines/README.md"]
    files += sorted(os.path.relpath(p, src)
                    for p in glob.glob(os.path.join(src, "docs", "*.md")))
    files += sorted(os.path.relpath(p, src) for p in
                    glob.glob(os.path.join(src, "plugin", "gstcuda*.c")))
    return files


# ---- rewriting -------------------------------------------------------------------

def split_command(text):
    """(env dict, gst-launch options, pipeline tokens)."""
    tokens = shlex.split(text, comments=True)
    env = {}
    while tokens and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", tokens[0]):
        k, v = tokens.pop(0).split("=", 1)
        env[k] = v
    assert tokens and tokens[0] == "gst-launch-1.0", text
    tokens.pop(0)
    opts = []
    while tokens and tokens[0].startswith("-"):
        opts.append(tokens.pop(0))
    return env, opts, tokens


def elements_of(tokens):
    """Indexes of the tokens that are element factory names: the first
    token, and each one after a "!" that is not caps or a pad reference."""
    out = []
    for i, t in enumerate(tokens):
        if (i == 0 or tokens[i - 1] == "!") and "=" not in t and \
                "/" not in t and "." not in t:
            out.append(i)
    return out


def props_end(tokens, i):
    """The index after element i's properties (name=value tokens)."""
    j = i + 1
    while j < len(tokens) and tokens[j] != "!" and "=" in tokens[j] and \
            not tokens[j].endswith(".") and \
            re.match(r"^[a-z][a-z0-9_:-]*=", tokens[j]):
        j += 1
    return j


def rewrite(tokens, frames, have_gpu, emulate_nv):
    """Returns (new tokens, list of changes)."""
    changes = []
    t = list(tokens)
    for i in reversed(elements_of(t)):
        name = t[i]
        end = props_end(t, i)
        props = t[i + 1:end]
        if name in DISPLAY_SINKS:
            keep = [p for p in props
                    if p.split("=")[0] in ("name", "sync", "async")]
            t[i:end] = ["fakesink"] + keep
            changes.append(f"{name} -> fakesink")
        elif name == "v4l2src":
            keep = [p for p in props if p.startswith("name=")]
            t[i:end] = ["videotestsrc", "is-live=true",
                        f"num-buffers={frames}"] + keep
            changes.append(f"v4l2src -> videotestsrc is-live=true "
                           f"num-buffers={frames}")
        elif name in LIMITED_SOURCES:
            nb = [p for p in props if p.startswith("num-buffers=")]
            if not nb or int(nb[-1].split("=")[1]) > frames or \
                    int(nb[-1].split("=")[1]) < 0:
                rest = [p for p in props if not p.startswith("num-buffers=")]
                t[i:end] = [name, f"num-buffers={frames}"] + rest
                changes.append(f"{name} num-buffers={frames}")
        elif emulate_nv and name in NVCODEC:
            t[i:end] = [NVCODEC[name]]
            changes.append(f"{name} -> {NVCODEC[name]} (emulated)")
    for i, tok in enumerate(t):
        if tok == "backend=cuda" and not have_gpu:
            t[i] = "backend=cpu"
            changes.append("backend=cuda -> backend=cpu (no GPU here)")
        if emulate_nv and "(memory:CUDAMemory)" in tok:
            t[i] = tok.replace("(memory:CUDAMemory)", "")
            changes.append("memory:CUDAMemory -> system memory (emulated)")
    if any(t[i] in DECODERS for i in elements_of(t)):
        changes.append(f"{frames} frames from the decoder (pad probe)")
    return t, changes


# ---- one run (a child process) -----------------------------------------------------

def run_one(spec):
    """Run spec["tokens"]; print one JSON result line. GLib warnings and
    criticals (PyGObject turns them into Python warnings) fail the line."""
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status, result = run_one_pipeline(spec)
    # PyGObject's category for GLib's g_warning / g_critical is "Warning"
    glib = [str(w.message) for w in caught
            if w.category.__name__ == "Warning"]
    if glib and result["ok"]:
        result["ok"] = False
        result["error"] = "GLib warning: " + glib[0]
        status = 1
    print(json.dumps(result))
    return status


def run_one_pipeline(spec):
    cvpipe.init()
    Gst, GLib = cvpipe.Gst, cvpipe.GLib
    result = {"ok": False, "error": None, "sinks": {}, "files": {}}
    try:
        pipeline = cvpipe.parse(spec["tokens"])
    except cvpipe.Error as e:
        result["error"] = str(e)
        return 1, result
    limits = []
    counts = {}

    def count(pad, _info, name):
        counts[name] = counts.get(name, 0) + 1
        return Gst.PadProbeReturn.OK

    it = pipeline.iterate_recurse()
    elements = []
    while True:
        ok, e = it.next()
        if ok != Gst.IteratorResult.OK:
            break
        elements.append(e)
    for e in elements:
        fname = e.get_factory().get_name() if e.get_factory() else ""
        if fname in DECODERS:
            limits.append(cvpipe.FrameLimit(spec["frames"]).attach(e))
        if e.get_factory() and \
                e.get_factory().list_is_type(Gst.ELEMENT_FACTORY_TYPE_SINK) \
                and not e.get_factory().list_is_type(
                    Gst.ELEMENT_FACTORY_TYPE_SRC):
            pad = e.get_static_pad("sink")
            if pad is not None:
                counts[e.get_name()] = 0
                pad.add_probe(Gst.PadProbeType.BUFFER, count, e.get_name())
        if fname == "filesink":
            result["files"][e.get_property("location")] = 0
    run = cvpipe.Run(pipeline)
    GLib.timeout_add_seconds(spec["timeout"], lambda: (
        setattr(run, "error", f"no EOS within {spec['timeout']} s") or
        run.loop.quit()) and False)
    run.run()
    result["sinks"] = counts
    result["error"] = run.error
    for f in result["files"]:
        result["files"][f] = os.path.getsize(f) if os.path.exists(f) else -1
    bad = [f for f, n in result["files"].items() if n <= 0]
    if not run.error and bad:
        result["error"] = f"nothing written to {', '.join(bad)}"
    if not result["error"] and counts and max(counts.values()) == 0:
        result["error"] = "no frame reached a sink"
    result["ok"] = result["error"] is None
    return (0 if result["ok"] else 1), result


def start_child(tokens, env, frames, timeout, workdir, build):
    spec = {"tokens": tokens, "frames": frames, "timeout": timeout}
    child_env = dict(os.environ)
    if "GST_PLUGIN_PATH" not in env and "GST_PLUGIN_PATH" not in child_env:
        child_env["GST_PLUGIN_PATH"] = os.path.join(build, "plugin")
    child_env.update(env)
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__),
                            "--run-one", json.dumps(spec)], cwd=workdir,
                           env=child_env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True,
                           timeout=timeout + 60)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"hung (killed after {timeout + 60} s)",
                "sinks": {}, "files": {}}
    last = p.stdout.strip().split("\n")[-1] if p.stdout.strip() else ""
    try:
        result = json.loads(last)
    except ValueError:
        why = f"exit status {p.returncode}"
        if p.returncode < 0:
            why = f"killed by signal {-p.returncode}"
        tail = p.stderr.strip().split("\n")[-3:]
        result = {"ok": False, "error": f"crashed ({why}): " +
                  " | ".join(tail), "sinks": {}, "files": {}}
    return result


# ---- main ------------------------------------------------------------------------

def gpu_usable(workdir, build):
    """Whether cudasobel backend=cuda runs here (a real GPU and driver)."""
    r = start_child(["videotestsrc", "num-buffers=1", "!", "cudasobel",
                     "backend=cuda", "!", "fakesink"], {}, 1, 30, workdir,
                    build)
    return r["ok"]


def show(tokens):
    """A command line that a shell runs as these tokens ("!" unquoted)."""
    return " ".join(t if re.match(r"^[A-Za-z0-9_.,:/=+@%!-]+$", t)
                    else shlex.quote(t) for t in tokens)


def describe(result):
    sinks = ", ".join(f"{n} at {s}" for s, n in sorted(
        result["sinks"].items()))
    files = ", ".join(f"{f} ({n} bytes)" for f, n in sorted(
        result["files"].items()))
    return "; ".join(x for x in (sinks and "buffers: " + sinks,
                                 files and "wrote " + files) if x)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--run-one":
        return run_one(json.loads(sys.argv[2]))
    ap = argparse.ArgumentParser(
        prog="doc-commands.py",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n", 1)[1])
    ap.add_argument("files", nargs="*", metavar="FILE",
                    help="files to search, relative to --srcdir")
    ap.add_argument("--srcdir", default=SRC,
                    help="the repository (default: %(default)s)")
    ap.add_argument("--build-dir", help="the meson build (default: "
                    "SRCDIR/build)")
    ap.add_argument("--workdir", help="where the lines run (default: a "
                    "temporary folder); its out/ is emptied first")
    ap.add_argument("--frames", type=int, default=5,
                    help="frames per line at most (default 5)")
    ap.add_argument("--timeout", type=int, default=120,
                    help="seconds per line at most (default 120)")
    ap.add_argument("--list", action="store_true",
                    help="only list the lines found")
    a = ap.parse_args()
    src = os.path.abspath(a.srcdir)
    build = os.path.abspath(a.build_dir or os.path.join(src, "build"))
    files = a.files or default_files(src)
    sys.stdout.reconfigure(line_buffering=True)

    lines = []
    for f in files:
        path = os.path.join(src, f)
        found = extract_c(path) if f.endswith(".c") else \
            extract_markdown(path)
        lines += [(f, n, text) for n, text in found]
    if a.list:
        for f, n, text in lines:
            print(f"{f}:{n}: {text}")
        print(f"doc-commands: {len(lines)} lines")
        return 0
    if not lines:
        print("doc-commands: no gst-launch-1.0 line found", file=sys.stderr)
        return 1
    if not os.path.isfile(os.path.join(build, "plugin",
                                       cvpipe.PLUGIN_FILE)):
        print(f"doc-commands: no plugin in {build}/plugin", file=sys.stderr)
        return 1

    tmp = None
    if a.workdir:
        workdir = os.path.abspath(a.workdir)
        os.makedirs(workdir, exist_ok=True)
    else:
        workdir = tmp = tempfile.mkdtemp(prefix="doc-commands-")
    shutil.rmtree(os.path.join(workdir, "out"), ignore_errors=True)
    os.makedirs(os.path.join(workdir, "out"))
    link = os.path.join(workdir, "build")
    if os.path.realpath(link) != build:
        if os.path.islink(link):
            os.remove(link)
        os.symlink(build, link)

    cvpipe.init()
    Gst = cvpipe.Gst
    have_gpu = gpu_usable(workdir, build)
    missing_nv = {e for e in NVCODEC if Gst.ElementFactory.find(e) is None}
    print(f"doc-commands: {len(lines)} lines in {len(files)} files, run in "
          f"{workdir}; GPU: {'yes' if have_gpu else 'no (backend=cuda runs as cpu)'}"
          f"; nvcodec elements missing: {', '.join(sorted(missing_nv)) or 'none'}")
    ok = skipped = failed = 0
    for f, n, text in lines:
        print(f"\n{f}:{n}:\n  $ {text}")
        try:
            env, opts, tokens = split_command(text)
        except ValueError as e:
            print(f"  FAIL: the line does not parse as a shell command: {e}")
            failed += 1
            continue
        needs_nv = sorted({tokens[i] for i in elements_of(tokens)
                           if tokens[i] in missing_nv})
        run_tokens, changes = rewrite(tokens, a.frames, have_gpu,
                                      emulate_nv=bool(needs_nv))
        if opts:
            changes.append(f"options {' '.join(opts)} dropped")
        if "GST_PLUGIN_PATH" not in env and \
                any(tokens[i].startswith("cuda") for i in elements_of(tokens)):
            changes.append("the build's plugin")
        print("  ran: " + show(["gst-launch-1.0"] + run_tokens))
        if changes:
            print("  changed: " + "; ".join(changes))
        r = start_child(run_tokens, env, a.frames, a.timeout, workdir, build)
        if needs_nv:
            skipped += 1
            print(f"  SKIP: needs {', '.join(needs_nv)} (nvcodec: NVIDIA "
                  f"GPU and driver), missing here")
            if r["ok"]:
                print(f"  with them emulated: ok ({describe(r)})")
            else:
                print(f"  with them emulated: FAIL: {r['error']}")
                failed += 1
                skipped -= 1
        elif r["ok"]:
            ok += 1
            print(f"  ok ({describe(r)})")
        else:
            failed += 1
            print(f"  FAIL: {r['error']}")
            if describe(r):
                print(f"    ({describe(r)})")
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\ndoc-commands: {len(lines)} lines: {ok} ok, {skipped} skipped, "
          f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
