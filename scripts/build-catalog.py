#!/usr/bin/env python3
"""Builds Sources/CFlickrCatalog/data/catalog.json, examples.json and names.txt (compiled into the binaries)
from the recorded Flickr material in Tests/Fixtures. Usage: scripts/build-catalog.py (no arguments).

Inputs (Tests/Fixtures/README.md says where they came from): methods.txt (the 223 names), methods_spec.json
(perms, verb, required/optional arguments — 2023 reflection), reflection-2017/*.json
(descriptions, argument docs, errors) and doc-examples/*.xml (example payloads).
The output is committed; rerun this script when the fixtures change.
"""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(here)
# The inputs, as named in the catalog's "source" field (a path inside the repository).
FIXTURES = "Tests/Fixtures"
fixtures = os.path.join(repo, *FIXTURES.split("/"))
resources = os.path.join(repo, "Sources", "CFlickrCatalog", "data")
# Examples live in their own file so that start-up (names, perms, arguments) stays cheap.
out = os.path.join(resources, "catalog.json")
out_examples = os.path.join(resources, "examples.json")
# The method names alone, one a line: what start-up needs (the `flickr` module's namespaces)
# without decoding the catalog, which waits for the first call.
out_names = os.path.join(resources, "names.txt")

GLOBAL_ERRORS = {}
PERMS = {"0": "none", "1": "read", "2": "write", "3": "delete"}
# Documented as optional although the 2023 reflection data marks it required (Tests/Fixtures/README.md).
OPTIONAL_OVERRIDES = {("flickr.photosets.getPhotos", "user_id")}


def text(node):
    if isinstance(node, dict):
        return (node.get("_content") or "").replace("\r\n", "\n").strip()
    return ""


def load_reflection(name):
    path = os.path.join(fixtures, "reflection-2017", name + ".json")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_example(name):
    path = os.path.join(fixtures, "doc-examples", name + ".xml")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return f.read().replace("\r\n", "\n").strip("\n")


def build_method(name, spec):
    refl = load_reflection(name)
    rmethod = refl.get("method", {})
    arg_docs = {a["name"]: text(a) for a in refl.get("arguments", {}).get("argument", [])}
    arguments = []
    for a in spec.get("arguments_excluding_api_key", []):
        optional = bool(a.get("optional")) or (name, a["name"]) in OPTIONAL_OVERRIDES
        arguments.append({"name": a["name"], "optional": optional,
                          "description": arg_docs.get(a["name"], "")})
    errors = []
    global_codes = []
    seen = set()
    for e in refl.get("errors", {}).get("error", []):
        code = int(e["code"])
        if code in seen:
            continue
        seen.add(code)
        if code >= 95:  # Flickr's global codes: stored once, at the top of the catalog.
            global_codes.append(code)
            GLOBAL_ERRORS.setdefault(code, {"code": code, "message": e.get("message", ""),
                                            "description": text(e)})
            continue
        errors.append({"code": code, "message": e.get("message", ""), "description": text(e)})
    if not errors:
        for e in spec.get("method_errors_2017", []) or []:
            errors.append({"code": int(e["code"]), "message": e.get("message", ""), "description": ""})
    perms = spec.get("requiredperms") or PERMS.get(str(rmethod.get("requiredperms", "0")), "none")
    description = text(rmethod.get("description")) or spec.get("description_head", "")
    return {
        "name": name,
        "description": description,
        "explanation": text(rmethod.get("explanation")),
        "perms": perms,
        "verb": "POST" if perms in ("write", "delete") else "GET",
        "needsLogin": bool(spec.get("needslogin_2017", rmethod.get("needslogin", 0))),
        "needsSigning": bool(spec.get("needssigning_2017", rmethod.get("needssigning", 0))),
        "arguments": arguments,
        "errors": errors,
        "globalErrors": global_codes or spec.get("global_error_codes_2017") or [],
    }


def main():
    if len(sys.argv) > 1:
        sys.exit("usage: scripts/build-catalog.py (it takes no arguments; it reads " + FIXTURES + ")")
    with open(os.path.join(fixtures, "methods_spec.json"), encoding="utf-8") as f:
        spec = json.load(f)
    with open(os.path.join(fixtures, "methods.txt"), encoding="utf-8") as f:
        names = [line.strip() for line in f if line.strip()]
    methods = [build_method(n, spec[n]) for n in names]
    catalog = {"version": 1, "source": FIXTURES + " (2017 reflection, 2023 method list)",
               "methods": methods,
               "globalErrors": [GLOBAL_ERRORS[c] for c in sorted(GLOBAL_ERRORS)]}
    examples = {n: load_example(n) for n in names if load_example(n) is not None}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(catalog, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")
    with open(out_examples, "w", encoding="utf-8") as f:
        json.dump(examples, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")
    with open(out_names, "w", encoding="utf-8") as f:
        f.write("".join(m["name"] + "\n" for m in methods))
    print(f"{os.path.relpath(out, repo)}: {len(methods)} methods; "
          f"{os.path.relpath(out_examples, repo)}: {len(examples)} examples")


if __name__ == "__main__":
    main()
