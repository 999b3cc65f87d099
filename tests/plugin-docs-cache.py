#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""plugin-docs-cache.py: the plugin's documentation cache.

GStreamer's plugin modules ship docs/gst_plugins_cache.json, what hotdoc's
GStreamer extension documents each element from: the plugin's details,
every element's metadata, pad templates (caps), properties (type, range,
default, flags, blurb) and signals, and the types they use (enums, the base
class and its properties). GStreamer builds it with gst-hotdoc-plugins-scanner,
which Debian does not ship; this program writes the same layout by
introspecting the built plugin (python3-gi).

  tests/plugin-docs-cache.py --build-dir build --check   (meson test)
  tests/plugin-docs-cache.py --build-dir build --update  (rewrite the file)

--check exits 1 with a diff when docs/gst_plugins_cache.json differs from
the built plugin (an undocumented change of a property, default, caps or
description), 0 when it matches. Generate it from a build with CUDA and
gstreamer-cuda (the CUDA-memory caps are part of the pad templates).
"""

import argparse
import difflib
import json
import os
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GObject, Gst  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CACHE = os.path.join(ROOT, "docs", "gst_plugins_cache.json")
PLUGIN = "cudavision"

# GstParamFlags beyond GParamFlags (gstobject.h / gstparamspecs.h)
GST_PARAM_CONTROLLABLE = 1 << 9
GST_PARAM_MUTABLE_READY = 1 << 10
GST_PARAM_MUTABLE_PAUSED = 1 << 11
GST_PARAM_MUTABLE_PLAYING = 1 << 12
GST_PARAM_CONDITIONALLY_AVAILABLE = 1 << 14


def value_string(v):
    """A default, minimum or maximum as the cache spells it."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    return repr(v) if isinstance(v, float) else str(v)


def enum_values(cls):
    """[{desc, name, value}] of a PyGObject enum class, by value."""
    return [{"desc": v.value_name, "name": v.value_nick, "value": str(int(v))}
            for v in sorted(cls.__enum_values__.values(), key=int)]


def enum_nick(cls, v):
    for val in enum_values(cls):
        if val["value"] == str(int(v)):
            return val["name"]
    return str(int(v))


def flags_of(pspec):
    f = int(pspec.flags)
    mutable = None
    if f & GST_PARAM_MUTABLE_PLAYING:
        mutable = "playing"
    elif f & GST_PARAM_MUTABLE_PAUSED:
        mutable = "paused"
    elif f & GST_PARAM_MUTABLE_READY:
        mutable = "ready"
    return {
        "conditionally-available": bool(f & GST_PARAM_CONDITIONALLY_AVAILABLE),
        "construct": bool(f & GObject.ParamFlags.CONSTRUCT),
        "construct-only": bool(f & GObject.ParamFlags.CONSTRUCT_ONLY),
        "controllable": bool(f & GST_PARAM_CONTROLLABLE),
        "mutable": mutable or "null",
        "readable": bool(f & GObject.ParamFlags.READABLE),
        "writable": bool(f & GObject.ParamFlags.WRITABLE),
    }


def property_entry(obj, pspec, types):
    d = {"blurb": pspec.blurb, "type": pspec.value_type.name}
    d.update(flags_of(pspec))
    t = pspec.value_type
    default = getattr(pspec, "default_value", None)
    if t.is_a(GObject.TYPE_ENUM):
        # the enum's values from the class of the property's value: what
        # PyGObject 3.42 (Debian 12) and 3.50 (Debian 13) both return (3.50
        # gives the pspec's default as a plain int, and t.pytype stays None
        # until some value of the type was converted)
        cls = type(obj.get_property(pspec.name))
        types[t.name] = {"kind": "enum", "values": enum_values(cls)}
        d["default"] = enum_nick(cls, default) if default is not None else None
    elif t == GObject.TYPE_BOOLEAN:
        d["default"] = "true" if default else "false"
    elif t == GObject.TYPE_STRING:
        d["default"] = default if default is not None else "NULL"
    elif hasattr(pspec, "minimum"):
        d["default"] = value_string(default)
        d["min"] = value_string(pspec.minimum)
        d["max"] = value_string(pspec.maximum)
    elif default is not None:
        d["default"] = str(default)
    return d


def hierarchy(gtype):
    out = []
    while gtype != GObject.TYPE_INVALID:
        out.append(gtype.name)
        gtype = gtype.parent
    return out


def own_properties(obj, gtype, types):
    return {p.name: property_entry(obj, p, types)
            for p in obj.list_properties() if p.owner_type == gtype}


def cache():
    reg = Gst.Registry.get()
    plugin = reg.find_plugin(PLUGIN)
    if plugin is None:
        sys.exit("plugin-docs-cache: plugin %s not found (GST_PLUGIN_PATH?)"
                 % PLUGIN)
    types = {}
    elements = {}
    for feat in sorted(reg.get_feature_list_by_plugin(PLUGIN),
                       key=lambda f: f.get_name()):
        if not isinstance(feat, Gst.ElementFactory):
            continue
        f = feat.load()
        gtype = f.get_element_type()
        e = f.create(None)
        pads = {}
        for t in f.get_static_pad_templates():
            pads[t.name_template] = {
                "caps": t.static_caps.string.replace(";", ";\n"),
                "direction": t.direction.value_nick,
                "presence": t.presence.value_nick,
            }
        elements[f.get_name()] = {
            "author": f.get_metadata(Gst.ELEMENT_METADATA_AUTHOR),
            "description": f.get_metadata(Gst.ELEMENT_METADATA_DESCRIPTION),
            "hierarchy": hierarchy(gtype),
            "klass": f.get_metadata(Gst.ELEMENT_METADATA_KLASS),
            "long-name": f.get_metadata(Gst.ELEMENT_METADATA_LONGNAME),
            "pad-templates": pads,
            "properties": own_properties(e, gtype, types),
            "rank": Gst.Rank(f.get_rank()).value_nick,
            "signals": {},
        }
        # the shared base class and its properties
        parent = gtype.parent
        if parent.name == "GstCudaVisionBase" and parent.name not in types:
            types[parent.name] = {
                "hierarchy": hierarchy(parent),
                "kind": "object",
                "properties": own_properties(e, parent, types),
            }
    return {PLUGIN: {
        "description": plugin.get_description(),
        "elements": elements,
        "filename": "gstcudavision",
        "license": plugin.get_license(),
        "other-types": types,
        "package": plugin.get_package(),
        "source": plugin.get_source(),
        "tracers": {},
        "url": plugin.get_origin(),
    }}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true")
    g.add_argument("--update", action="store_true")
    ap.add_argument("--cache", default=CACHE)
    args = ap.parse_args()
    os.environ.setdefault("GST_PLUGIN_PATH", os.path.join(
        os.path.abspath(args.build_dir), "plugin"))
    Gst.init(None)
    text = json.dumps(cache(), indent=4, sort_keys=True) + "\n"
    if args.update:
        with open(args.cache, "w") as f:
            f.write(text)
        print("plugin-docs-cache: wrote %s" % args.cache)
        return 0
    try:
        with open(args.cache) as f:
            old = f.read()
    except OSError:
        old = ""
    if old == text:
        print("plugin-docs-cache: %s matches the built plugin" % args.cache)
        return 0
    sys.stdout.writelines(difflib.unified_diff(
        old.splitlines(True), text.splitlines(True),
        "docs/gst_plugins_cache.json", "the built plugin"))
    print("plugin-docs-cache: %s differs from the built plugin: document "
          "the change and run tests/plugin-docs-cache.py --update" %
          args.cache)
    return 1


if __name__ == "__main__":
    sys.exit(main())
