#!/usr/bin/env python3
"""Generates FlickrAPI's typed calls, one Swift function per catalog method:
Sources/FlickrAPI/Generated/FlickrMethods+Generated.swift from Sources/CFlickrCatalog/data/catalog.json.

Usage: scripts/generate-methods.py            writes the file
       scripts/generate-methods.py --stdout   prints it (the staleness test compares the two)

The output is committed; rerun this script when the catalog changes (scripts/build-catalog.py).
It is deterministic: namespaces and methods sorted by name, arguments in the catalog's order with
the required ones first.

Shape: `client.photos.comments.addComment(photoID:commentText:)` — a namespace is a property
following Flickr's path (`FlickrMethods.Photos.Comments`), a method a function named as Flickr names
it, returning the `FlickrNode` of `FlickrClient.call` and throwing `FlickrError`.

Labels: snake_case to lowerCamelCase; after the first word `id`, `ids`, `url`, `urls`, `nsid`,
`nsids` are upper-cased as the Swift API guidelines write them (`photo_id` → `photoID`,
`owner_nsid` → `ownerNSID`), the first word stays lower-case (`url`, `nsids`). A Swift keyword is
escaped with backticks. Required arguments (the catalog's, less `MethodCatalog.optionalInPractice`,
copied below in OPTIONAL_IN_PRACTICE and checked by the tests) come first without defaults; the
others are optional and default to nil.

The catalog has no argument types, so they come from names and descriptions, by these rules
(first match wins):
  1. Auth plumbing never appears: `api_key`, `oauth_*`, `auth_token` (`flickr.auth.oauth.checkToken`
     and `flickr.auth.checkToken` send the token of the client's context).
  2. Date (`Date`), in the unit the argument's description names first: "unix timestamp" or "epoch
     seconds" → Unix timestamp; "mysql datetime" → `YYYY-MM-DD HH:MM:SS`; "YYYY-MM-DD" → day.
     Names whose description does not say: DATE_UNITS below (Flickr's dates documentation:
     `date_posted` is a Unix timestamp, `date_taken` a MySQL datetime). `dates` and `taken_dates`
     are lists of dates, comma-separated.
  3. Int: INT_NAMES (pages, counts, limits, coordinates of notes and people, numeric codes such as
     `safe_search`, `privacy_filter`, `content_type`, `perm_comment`) and names ending in `_count`.
  4. Double: `lat`, `lon`, `radius`.
  5. Bool, sent as 1/0: names starting with `is_` or `has_`, and BOOL_NAMES (`hidden`,
     `just_friends`, `accept_rules`, …).
  6. [String]: LIST_NAMES (`extras`, `tags`, `photo_ids`, …) and arguments whose description says
     "comma-delimited/comma-separated list". Joined with commas, except `tags` of
     `flickr.photos.addTags` and `flickr.photos.setTags`, a tag string: `TagString.join` (spaces
     between tags, a tag with a space quoted).
  7. Everything else String.
`flickr.test.echo`, which takes any argument, also takes a dictionary of arguments.
Methods that need write or delete permission are `@discardableResult`.
"""
import html
import json
import os
import re
import sys
import textwrap

here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(here)
CATALOG = os.path.join(repo, "Sources", "CFlickrCatalog", "data", "catalog.json")
OUT = os.path.join(repo, "Sources", "FlickrAPI", "Generated", "FlickrMethods+Generated.swift")

# Mirrors MethodCatalog.optionalInPractice (FlickrProtocol); TypedCallCatalogTests checks they agree.
OPTIONAL_IN_PRACTICE = {
    ("flickr.photosets.getPhotos", "user_id"),
    ("flickr.photosets.getInfo", "user_id"),
    ("flickr.galleries.getList", "continuation"),
    ("flickr.galleries.getList", "short_limit"),
    ("flickr.galleries.removePhoto", "full_response"),
    ("flickr.groups.discuss.replies.getList", "per_page"),
}
# Auth arguments filled from the client's context instead of a label.
FROM_CONTEXT = {"oauth_token": "oauthToken", "auth_token": "authToken"}
OPEN_METHODS = {"flickr.test.echo"}
TAG_STRING = {("flickr.photos.addTags", "tags"), ("flickr.photos.setTags", "tags")}
DATE_UNITS = {"date_posted": "unixTimestamp", "date_taken": "mysqlDateTime"}
DATE_LISTS = {"dates", "taken_dates"}
INT_NAMES = {"per_page", "page", "count", "limit", "short_limit", "accuracy", "degrees", "num_days", "lease_seconds",
             "threshold", "date_taken_granularity", "note_x", "note_y", "note_w", "note_h", "person_x", "person_y",
             "person_w", "person_h", "safe_search", "privacy_filter", "content_type", "safety_level", "place_type_id",
             "license_id", "perm_comment", "perm_addmeta", "geo_context"}
DOUBLE_NAMES = {"lat", "lon", "radius"}
BOOL_NAMES = {"in_gallery", "just_friends", "include_self", "accept_rules", "delete_photos", "full_response",
              "full_result", "single_photo", "get_user_info", "get_gallery_info", "hidden"}
LIST_NAMES = {"extras", "primary_photo_extras", "tags", "machine_tags", "content_types", "video_content_types",
              "photo_ids", "photoset_ids", "place_ids", "woe_ids", "nsids", "tickets", "membertypes"}
ACRONYMS = {"id": "ID", "ids": "IDs", "url": "URL", "urls": "URLs", "nsid": "NSID", "nsids": "NSIDs"}
KEYWORDS = {"associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
            "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
            "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
            "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw",
            "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super",
            "throws", "true", "try", "Type", "Protocol"}
# Names a namespace's own members use.
RESERVED = {"client"}


def camel(name):
    words = name.split("_")
    out = words[0].lower()
    for w in words[1:]:
        out += ACRONYMS.get(w.lower(), w[:1].upper() + w[1:])
    return out


def escape(identifier):
    return "`" + identifier + "`" if identifier in KEYWORDS else identifier


def type_name(segment):
    return segment[:1].upper() + segment[1:]


def date_unit(method, arg):
    d = arg["description"].lower()
    found = []
    for unit, needles in (("unixTimestamp", ("unix timestamp", "epoch seconds")),
                          ("mysqlDateTime", ("mysql datetime",)), ("day", ("yyyy-mm-dd",))):
        positions = [d.find(n) for n in needles if d.find(n) >= 0]
        if positions:
            found.append((min(positions), unit))
    if found:
        return sorted(found)[0][1]
    return DATE_UNITS.get(arg["name"])


def is_date_name(name):
    return name in ("date", "min_date", "added_since") or name.startswith("date_") or name.endswith("_date") \
        or name in DATE_LISTS


def kind(method, arg):
    """(swift type, encoding) of one argument, by the rules of the module docstring."""
    name, desc = arg["name"], arg["description"].lower()
    if is_date_name(name) and name != "date_taken_granularity":
        unit = date_unit(method, arg)
        if unit:
            return ("[Date]", "dates:" + unit) if name in DATE_LISTS else ("Date", "date:" + unit)
    if name in INT_NAMES or name.endswith("_count"):
        return "Int", "int"
    if name in DOUBLE_NAMES:
        return "Double", "double"
    if name.startswith("is_") or name.startswith("has_") or name in BOOL_NAMES:
        return "Bool", "bool"
    if (method, name) in TAG_STRING:
        return "[String]", "tagString"
    if name in LIST_NAMES or re.search(r"comma[- ](delimited|separated) list", desc):
        return "[String]", "commas"
    return "String", "string"


def plain(text):
    """A catalog description (HTML) as one line of plain text for a doc comment."""
    t = re.sub(r"<code>(.*?)</code>", r"`\1`", text, flags=re.S)
    t = re.sub(r"<li>", " • ", t)
    t = re.sub(r"<br\s*/?>", " ", t)
    t = re.sub(r"<[^>]+>", "", t)
    t = html.unescape(t).replace("\u00a0", " ")
    return re.sub(r"\s+", " ", t).strip()


def doc(lines_text, indent, first_prefix="", rest_prefix=""):
    width = 112 - len(indent) - 4
    out = []
    for para in lines_text:
        if para == "":
            out.append(indent + "///")
            continue
        prefix, text = para if isinstance(para, tuple) else ("", para)
        wrapped = textwrap.wrap(text, width=width - len(prefix), break_long_words=False, break_on_hyphens=False) or [""]
        for i, line in enumerate(wrapped):
            lead = prefix if i == 0 else " " * len(prefix)
            out.append((indent + "/// " + lead + line).rstrip())
    return out


ENCODING_NOTE = {
    "int": "", "double": "", "string": "", "bool": "Sent as 1 or 0.",
    "commas": "Sent comma-separated.", "tagString": "Sent as one tag string (a tag with a space is quoted).",
    "date:unixTimestamp": "Sent as a Unix timestamp.", "date:mysqlDateTime": "Sent as a MySQL datetime (UTC).",
    "date:day": "Sent as a day, YYYY-MM-DD (UTC).",
    "dates:unixTimestamp": "Sent as comma-separated Unix timestamps.",
    "dates:mysqlDateTime": "Sent as comma-separated MySQL datetimes (UTC).",
}


def add_call(enc, flickr_name, swift_name):
    if enc.startswith("date:"):
        return f'typed.add("{flickr_name}", {swift_name}, as: .{enc[5:]})'
    if enc.startswith("dates:"):
        return f'typed.add("{flickr_name}", {swift_name}, as: .{enc[6:]})'
    if enc == "commas":
        return f'typed.add("{flickr_name}", {swift_name}, joined: .commas)'
    if enc == "tagString":
        return f'typed.add("{flickr_name}", {swift_name}, joined: .tagString)'
    return f'typed.add("{flickr_name}", {swift_name})'


def method_lines(m, indent):
    name = m["name"]
    func = name.split(".")[-1]
    args = [a for a in m["arguments"] if a["name"] != "api_key"]
    required = [a for a in args if not a["optional"] and (name, a["name"]) not in OPTIONAL_IN_PRACTICE
                and a["name"] not in FROM_CONTEXT]
    optional = [a for a in args if a not in required and a["name"] not in FROM_CONTEXT]
    params, adds, docs = [], [], []
    used = set()
    for a in required + optional:
        label = camel(a["name"])
        assert label not in used and label not in RESERVED and label != "typed", (name, label)
        used.add(label)
        swift_type, enc = kind(name, a)
        is_required = a in required
        decl = escape(label) + ": " + swift_type + ("" if is_required else "? = nil")
        params.append(decl)
        adds.append(add_call(enc, a["name"], escape(label)))
        text = plain(a["description"]) or "(Flickr's reference says nothing more.)"
        if text[-1] not in ".!?)":
            text += "."
        note = ENCODING_NOTE[enc]
        docs.append((f"- {label}: ", (text + " " + note).strip() + ("" if is_required else " Optional.")))
    for a in args:
        if a["name"] in FROM_CONTEXT:
            adds.append(f'typed.add("{a["name"]}", self.client.context.{FROM_CONTEXT[a["name"]]})')
    if name in OPEN_METHODS:
        params.append("_ extra: [String: String] = [:]")
        adds.append("typed.add(extra)")
        docs.append(("- extra: ", "Any other arguments, sent as given (sorted by name)."))
    summary = plain(m["description"]) or f"Calls `{name}`."
    perms = m["perms"]
    auth = "no login" if perms == "none" and not m["needsLogin"] else f"a login with `{perms}` permission"
    body = [summary, "", f"`{name}` ({m['verb']}, needs {auth})."]
    if any(a["name"] in FROM_CONTEXT for a in args):
        body.append("The token checked is the one of the client's context.")
    if docs:
        body += ["", "- Parameters:"] + [("  " + p, t) for p, t in docs]
    body += ["- Returns: The answer, as ``FlickrClient/call(_:_:verb:timeout:strict:)`` returns it.",
             "- Throws: ``FlickrError``, as ``FlickrClient/call(_:_:verb:timeout:strict:)`` does."]
    out = doc(body, indent)
    if perms in ("write", "delete"):
        out.append(indent + "@discardableResult")
    sig = f"public func {escape(func)}({', '.join(params)}) async throws(FlickrError) -> FlickrNode {{"
    out.append(indent + sig)
    inner = indent + "    "
    out.append(inner + ("var typed = TypedArguments()" if adds else "let typed = TypedArguments()"))
    for line in adds:
        out.append(inner + line)
    out.append(inner + f'return try await self.client.call("{name}", arguments: typed.pairs)')
    out.append(indent + "}")
    return out


def build_tree(methods):
    root = {"children": {}, "methods": []}
    for m in methods:
        parts = m["name"].split(".")
        assert parts[0] == "flickr" and len(parts) >= 3, m["name"]
        node = root
        for seg in parts[1:-1]:
            node = node["children"].setdefault(seg, {"children": {}, "methods": []})
        node["methods"].append(m)
    return root


def count_methods(node):
    return len(node["methods"]) + sum(count_methods(c) for c in node["children"].values())


def namespace_lines(path, node, indent):
    full = "flickr." + ".".join(path)
    names = sorted(m["name"].split(".")[-1] for m in node["methods"])
    children = sorted(node["children"])
    clash = set(names) & set(children)
    assert not clash, (full, clash)
    text = [f"The `{full}` methods ({count_methods(node)} in all)."]
    if names:
        text.append("Its own: " + ", ".join(f"`{n}`" for n in names) + ".")
    if children:
        text.append("Beneath: " + ", ".join(f"`{c}`" for c in children) + ".")
    out = doc([" ".join(text)], indent)
    out.append(indent + f"public struct {type_name(path[-1])}: Sendable {{")
    inner = indent + "    "
    out.append(inner + "let client: FlickrClient")
    for c in children:
        out.append("")
        out += doc([f"The `{full}.{c}` methods."], inner)
        t = type_name(c)
        out.append(inner + f"public var {escape(c)}: {t} {{ {t}(client: client) }}")
    for m in sorted(node["methods"], key=lambda m: m["name"]):
        out.append("")
        out += method_lines(m, inner)
    for c in children:
        out.append("")
        out += namespace_lines(path + [c], node["children"][c], inner)
    out.append(indent + "}")
    return out


def generate():
    with open(CATALOG, encoding="utf-8") as f:
        catalog = json.load(f)
    methods = sorted(catalog["methods"], key=lambda m: m["name"])
    root = build_tree(methods)
    lines = [
        "// Generated by scripts/generate-methods.py from Sources/CFlickrCatalog/data/catalog.json.",
        "// Do not edit: change the script or the catalog and run scripts/generate-methods.py.",
        f"// {len(methods)} methods in {len(root['children'])} top-level namespaces.",
        "",
        "import FlickrProtocol",
        "import Foundation",
        "",
        "extension FlickrClient {",
    ]
    tops = sorted(root["children"])
    for i, c in enumerate(tops):
        if i:
            lines.append("")
        lines += doc([f"The `flickr.{c}` methods, typed (``FlickrMethods``)."], "    ")
        t = type_name(c)
        lines.append(f"    public var {escape(c)}: FlickrMethods.{t} {{ FlickrMethods.{t}(client: self) }}")
    lines += ["}", "", "extension FlickrMethods {"]
    for i, c in enumerate(tops):
        if i:
            lines.append("")
        lines += namespace_lines([c], root["children"][c], "    ")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    text = generate()
    if "--stdout" in sys.argv[1:]:
        sys.stdout.write(text)
        return
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(os.path.relpath(OUT, repo))


if __name__ == "__main__":
    main()
