-- The hand-written part of the LuaCATS definitions `flickr editor luals` prints (the rest, a class
-- per catalog method, is generated from the catalog): the types every declaration uses, the
-- module's helpers and the `sandbox` global. Compiled into `flickr` (CFlickrLuaSources) and read
-- by LuaDefinitions.swift. A line `--@@ NAME [ARG…]` starts a section: `prelude`; `helper PATH`
-- (a field of `flickr` that is not a catalog method, in the order of LUA-API.md; `open` after the
-- path: luacheck leaves its fields unchecked); `sandbox`. `{{error_kinds}}` is replaced by the
-- kinds a flickr.Error carries. These lines, before the first section, are not printed.
--@@ prelude
---A Flickr id: a string, or an integer (sent without `.0`).
---@alias flickr.Id string|integer
---A number, or its text (`"2019-07-02 14:03:00"` for a date, where Flickr takes one).
---@alias flickr.Number number|string
---A flag: `true`/`false` (sent as 1/0), 1/0, or text.
---@alias flickr.Flag boolean|integer|string
---A list: a comma-separated string or an array (joined with commas; `tags` as Flickr's quoted tag string).
---@alias flickr.List string|number|(string|number)[]
---What `flickr.call` takes as an argument value.
---@alias flickr.Value string|number|boolean|(string|number)[]

---The `flickr` module: the global `flickr` in the command, and `require "flickr"`.
---Every Flickr method is `flickr.<namespace>.<method>{ args }` (a name in another case is found too);
---a failure raises a `flickr.Error`.
---@class flickr
flickr = {}

---A Flickr answer: the `<rsp>` element mapped to tables (attributes and texts are strings,
---an element's text is its `_text`, repeated elements are arrays). With
---`flickr.configure{ format = "json" }` it follows Flickr's JSON instead (`_content` for text).
---@class flickr.Response
---@field stat "ok"
---@field [string] any

---What a failure raised: `err.kind`, then what applies. `tostring(err)` gives
---`flickr.photos.search: [100] Invalid API Key`.
---@alias flickr.ErrorKind {{error_kinds}}

---The error every failure raises (its metatable is `flickr.Error`): `pcall` returns it intact.
---@class flickr.Error
---@field kind flickr.ErrorKind api: Flickr answered stat="fail"; oauth: a 401 with oauth_problem; http: an HTTP status or a body that is not Flickr's; network; timeout; parse: a malformed body; usage: a bad call (no request made); cancelled: Ctrl-C; lua: a plain error inside flickr.map/parallel
---@field message string
---@field code? integer Flickr's error code (kind "api")
---@field method? string the method or helper that failed
---@field status? integer the HTTP status, when an answer arrived
---@field oauth_problem? string
---@field debug_sbs? string the base string Flickr signed (to compare with the client's)
---@field signed_base_string? string the base string the client signed
---@field retry_after? number seconds, from Retry-After
---@field duplicate_photo_id? string an upload that was a duplicate (code 9): the photo that exists
---@field body? string the start of an unexpected body
---@field cause? any kind "lua": the value that was raised
---@field in_function? string flickr.map or flickr.parallel: which one
---@field index? integer flickr.map or flickr.parallel: the failing item's position
---@field item? any flickr.map: the failing item
---@field partial? table flickr.map or flickr.parallel: the results that did finish, by position
---@field __tostring fun(e: flickr.Error): string
---@field __name string
flickr.Error = {}

---The options of `flickr.call`.
---@class flickr.CallOptions
---@field verb? "GET"|"POST" the HTTP verb (default: POST for write and delete methods, else GET)
---@field timeout? number seconds
---@field strict? boolean false: send a method or arguments the catalog does not know, as given

---The options of `flickr.walk`.
---@class flickr.WalkOptions
---@field max_pages? integer at most this many pages
---@field windows? boolean flickr.photos.search: past Flickr's 4,000-result cap, by upload-date windows
---@field snapshot? boolean fetch every page first, for loops that change what they walk
---@field strict? boolean as flickr.call's

---A photo as a list gives it: its standard attributes, and the extras asked for (`extras = "tags,url_z"`).
---@class flickr.Photo
---@field id string
---@field owner? string
---@field secret? string
---@field server? string
---@field farm? string
---@field title? string
---@field ispublic? string
---@field isfriend? string
---@field isfamily? string
---@field description? { _text: string } extra description
---@field license? string extra
---@field date_upload? string extra: Unix seconds
---@field datetaken? string extra: "2019-07-02 14:03:00"
---@field datetakengranularity? string extra
---@field ownername? string extra owner_name
---@field iconserver? string extra icon_server
---@field iconfarm? string extra icon_server
---@field originalsecret? string extra original_format
---@field originalformat? string extra original_format
---@field lastupdate? string extra last_update
---@field latitude? string extra geo
---@field longitude? string extra geo
---@field accuracy? string extra geo
---@field tags? string extra tags: space-separated clean forms
---@field machine_tags? string extra machine_tags
---@field o_width? string extra o_dims
---@field o_height? string extra o_dims
---@field views? string extra views
---@field media? string extra media: "photo" or "video"
---@field path_alias? string extra path_alias
---@field url_sq? string extra url_sq
---@field url_q? string extra url_q
---@field url_t? string extra url_t
---@field url_s? string extra url_s
---@field url_n? string extra url_n
---@field url_m? string extra url_m
---@field url_z? string extra url_z
---@field url_c? string extra url_c
---@field url_l? string extra url_l
---@field url_o? string extra url_o
---@field [string] any

---A page of "the standard photo list" (flickr.photos.search and others).
---@class flickr.PhotoList
---@field page string
---@field pages string
---@field perpage string
---@field total string
---@field photo flickr.Photo[]

---@alias flickr.Size "s"|"q"|"t"|"m"|"n"|"w"|""|"-"|"z"|"c"|"b"|"h"|"k"|"3k"|"4k"|"f"|"5k"|"6k"|"o"

---The options of `flickr.download`.
---@class flickr.DownloadOptions
---@field size? flickr.Size default: the original (a video's own file), else the largest offered
---@field dir? string the directory to write into (created when missing)
---@field path? string the file to write (a directory: its default name in it)
---@field progress? fun(received: integer, total: integer?)

---What `flickr.download` did.
---@class flickr.Downloaded
---@field path string
---@field bytes integer
---@field skipped boolean true: the file was already there, whole
---@field size string the size suffix fetched ("-" for the medium size)
---@field url string
---@field photo_id string

---The table of `flickr.upload` and `flickr.replace`: the helper's fields among Flickr's.
---@class flickr.UploadArgs
---@field file? string the file to send (or `data`)
---@field data? string the bytes to send (with `filename`)
---@field filename? string
---@field mime? string the MIME type (default: from the file's first bytes)
---@field async? boolean true: return a ticket id (flickr.wait_tickets waits for it)
---@field progress? fun(sent: integer, total: integer)
---@field photo_id? flickr.Id flickr.replace: the photo to replace
---@field title? string
---@field description? string
---@field tags? flickr.List a list of tags, or Flickr's tag string ('cat "black cat"')
---@field is_public? flickr.Flag
---@field is_friend? flickr.Flag
---@field is_family? flickr.Flag
---@field safety_level? flickr.Number 1 safe, 2 moderate, 3 restricted
---@field content_type? flickr.Number 1 photo, 2 screenshot, 3 other
---@field hidden? flickr.Number 1 shown in searches, 2 hidden

---An upload ticket's state.
---@class flickr.Ticket
---@field id string
---@field status "pending"|"complete"|"failed"|"invalid"
---@field photo_id? string

---A method's description (`tostring(help)` is its text).
---@class flickr.Help
---@field text string
---@field name? string a method's name
---@field description? string
---@field perms? "none"|"read"|"write"|"delete"
---@field verb? "GET"|"POST"
---@field needs_login? boolean
---@field arguments? { name: string, description: string, optional: boolean }[]
---@field errors? { code: integer, message: string, description: string }[]
---@field group? string a group's name
---@field methods? string[] a group's methods

---The options of `flickr.configure` (`false` clears a setting).
---@class flickr.Settings
---@field api_key? string|false
---@field secret? string|false
---@field token? string|false
---@field token_secret? string|false
---@field auth_token? string|false a legacy token
---@field endpoint? string|false another base URL than Flickr's (a sandbox's)
---@field profile? string|false stored credentials to use
---@field format? "xml"|"json"|false
---@field timeout? number seconds per request
---@field upload_timeout? number seconds
---@field retries? integer
---@field rate? number|"unlimited"|false calls per second (default 1, a burst of 5; unlimited on loopback)
---@field burst? integer
---@field budget? string|false "N/SECONDS": calls per window for the key, shared by every flickr process

---The settings in force, secrets masked.
---@class flickr.Config
---@field api_key? string
---@field secret? string
---@field token? string
---@field token_secret? string
---@field auth_token? string
---@field endpoint? string
---@field rest? string
---@field profile? string
---@field user? string
---@field format string
---@field timeout number
---@field upload_timeout number
---@field retries integer
---@field rate number|"unlimited"
---@field burst integer
---@field budget string
---@field signed_in? "oauth"|"legacy"

---An access token (now in use).
---@class flickr.AccessToken
---@field token string
---@field secret string
---@field user_nsid? string
---@field username? string
---@field fullname? string
---@field profile_path? string flickr.oauth.login: where it was saved

---A request token.
---@class flickr.RequestToken
---@field token string
---@field secret string
---@field authorize_url string

---The options of `flickr.map` and `flickr.parallel`.
---@class flickr.MapOptions
---@field concurrency? integer flickr.map: calls in flight (default 8)
---@field on_error? "raise"|"collect" raise (default): the first failure is raised; collect: return results, errors

---A retag job's plan.
---@class flickr.RetagPlan
---@field job string the job's id
---@field photos { id: string, removed: string[], added: string[] }[]
local RetagPlan = {}
---The diff `flickr retag plan` prints.
---@return string
function RetagPlan:diff() end
---Writes the plan's job id as JSON (`flickr retag apply FILE` takes it).
---@param path string
---@return string path
function RetagPlan:save(path) end
---Runs the job; returns its summary, as flickr.jobs.list() gives it.
---@param opts? { progress: fun(done: integer, total: integer) }
---@return flickr.JobSummary
function RetagPlan:apply(opts) end

---The changes of an edit plan (each optional; LUA-API.md has every form).
---@class flickr.EditChanges
---@field title? string a template of the photo's fields: "{date_taken:%Y-%m-%d} {title}"
---@field description? string a template
---@field privacy? "public"|"private"|"friends"|"family"|"friends,family"|string[]
---@field license? integer|string an id, or a name such as "by-sa"
---@field safety? "safe"|"moderate"|"restricted"|integer
---@field content_type? "photo"|"screenshot"|"other"|integer
---@field shift_taken? string "+3h", "-1d2h"
---@field set_taken? string "2019-07-02 14:03:00", "2019-07", "circa 2019"
---@field geo? string|{ lat: number, lon: number, accuracy?: integer }|number[]
---@field clear_geo? boolean
---@field add_to_set? string|string[] a set's title or id
---@field remove_from_set? string|string[]
---@field create_set? boolean
---@field rename? string[]|{ from: string, to: string }|table[]
---@field add? string|string[]
---@field remove? string|string[]
---@field tags? string[] a rule's result only: the photo's whole list of ordinary tags
---@field date_taken? string a rule's result only: as set_taken

---The table of `flickr.edit.plan`.
---@class flickr.EditSpec
---@field query? table flickr.photos.search's arguments over your photos
---@field find? flickr.Filter flickr.library's filter over the library on disk
---@field changes? flickr.EditChanges
---@field rule? fun(photo: flickr.LibraryPhoto): flickr.EditChanges?

---The table of `flickr.push.plan` (CLI.md's `flickr push plan` options).
---@class flickr.PushSpec
---@field dirs string|string[] the folders
---@field sets? "folder"|"none"|string the set of each photo: its folder's, none, or this title
---@field tags? string tags every upload gets
---@field privacy? "public"|"private"|"friends"|"family"|"friends,family"
---@field license? integer|string
---@field safety? "safe"|"moderate"|"restricted"
---@field hidden? boolean
---@field replace? boolean replace a photo whose file's bytes changed
---@field delete? boolean delete a photo this push uploaded whose file is gone
---@field ignore? string|string[] globs over the path relative to the folder (or the name)
---@field keywords? "full" hierarchical keywords whole
---@field title_from_filename? boolean

---A push job's plan.
---@class flickr.PushPlan
---@field job? string nil when there is nothing to do
---@field steps { action: "upload"|"move"|"replace"|"meta"|"delete", path: string, root: string, photo?: string, from?: string, set?: string, leaves_set?: string, groups: string[], sha256: string, size: integer, status: string }[]
---@field lines { action: string, path: string, detail?: string }[]
---@field counts table<string, integer>
---@field calls integer
---@field apply_calls integer
---@field hashed integer
---@field hashed_bytes integer
---@field warnings string[]
local PushPlan = {}
---Runs the job; returns its summary, as flickr.jobs.list() gives it (nil when there is no job).
---@param opts? { progress: fun(done: integer, total: integer) }
---@return flickr.JobSummary?
function PushPlan:apply(opts) end

---An edit job's plan.
---@class flickr.EditPlan
---@field job string
---@field enumerated integer
---@field calls integer
---@field apply_calls integer
---@field fields table<string, integer>
---@field summary string
---@field photos { id: string, lastupdate: string, changes: { field: string, group: string, from: any, to: any }[], diff: string[] }[]
---@field refused { id: string, field: string, reason: string }[]
local EditPlan = {}
---The text `flickr edit plan` prints.
---@return string
function EditPlan:diff() end
---Writes the plan as `flickr edit plan --out` does (`flickr edit apply FILE` takes it).
---@param path string
---@return string path
function EditPlan:save(path) end
---Runs the job; returns its summary, as flickr.jobs.list() gives it.
---@param opts? { progress: fun(done: integer, total: integer) }
---@return flickr.JobSummary
function EditPlan:apply(opts) end

---A job, as `flickr jobs --json` shows it.
---@class flickr.JobSummary
---@field id string
---@field kind string "retag" or "edit"; an undo has the kind of the job it takes back
---@field undo_of? string for an undo, and only for one: the job it takes back
---@field state string
---@field [string] any

---A filter of the library on disk (`flickr find`'s keys).
---@class flickr.Filter
---@field tags? string|string[] all of these
---@field any_tags? string|string[]
---@field untagged? boolean
---@field machine_tags? string|string[] patterns, `*` for any part
---@field text? string
---@field taken? string|integer|{ from?: string, to?: string }|string[] "2019", "2019-03", "2019-03-01..2019-06-30"
---@field uploaded? string|integer|{ from?: string, to?: string }|string[]
---@field updated? string|integer|{ from?: string, to?: string }|string[]
---@field set? string a set's id or title
---@field privacy? "public"|"private"|"friends"|"family"
---@field license? integer|string|(integer|string)[]
---@field media? "photo"|"video"
---@field has_geo? boolean
---@field order? "taken"|"uploaded"|"updated"|"views"|"-taken"|"-uploaded"|"-updated"|"-views"
---@field limit? integer

---A photo of the library on disk.
---@class flickr.LibraryPhoto
---@field id string
---@field owner string
---@field secret? string
---@field server? string
---@field title? string
---@field description? string
---@field tags string[]
---@field machine_tags string[]
---@field date_taken? string
---@field date_taken_granularity? integer
---@field date_upload? integer
---@field last_update? integer
---@field ispublic? integer
---@field isfriend? integer
---@field isfamily? integer
---@field privacy? string
---@field license? string
---@field safety? integer
---@field content_type? integer
---@field media? "photo"|"video"
---@field latitude? number
---@field longitude? number
---@field accuracy? integer
---@field views? integer
---@field farm? integer
---@field o_width? integer
---@field o_height? integer
---@field original_format? string
---@field url_o? string
---@field sets string[]
--@@ helper call
---Calls any method by name (the leading "flickr." is implied), checked against the catalog
---unless `strict = false`.
---@param method string
---@param args? table<string, flickr.Value>
---@param opts? flickr.CallOptions
---@return flickr.Response
function flickr.call(method, args, opts) end
--@@ helper walk
---Every item of a paginated list, fetching pages as the loop goes:
---`for photo in flickr.walk("flickr.photos.search", { user_id = "me" }) do … end`.
---@param method string a method that takes `page`
---@param args? table<string, flickr.Value>
---@param opts? flickr.WalkOptions
---@return fun(): flickr.Photo?
function flickr.walk(method, args, opts) end
--@@ helper map
---Calls `fn(item, index)` for each item, up to `concurrency` calls in flight; the results in
---input order. The first failure is raised (naming its item) unless `on_error = "collect"`,
---which returns `results, errors`.
---@generic T, R
---@param list T[]
---@param fn fun(item: T, index: integer): R
---@param opts? flickr.MapOptions
---@return R[] results
---@return table<integer, flickr.Error>? errors with on_error = "collect"
function flickr.map(list, fn, opts) end
--@@ helper parallel
---Runs the functions together and returns their results (a last table argument is the options:
---`{ on_error = "collect" }` returns `results, errors`).
---@param ... function|flickr.MapOptions
---@return any ...
function flickr.parallel(...) end
--@@ helper photo_url
---The URL of a photo's image of `size`: from the shared secret for s…b, from url_* /
---originalsecret extras for larger sizes, else one flickr.photos.getSizes call.
---@param photo flickr.Photo
---@param size? flickr.Size default "" (medium)
---@return string
function flickr.photo_url(photo, size) end
--@@ helper photo_page_url
---https://www.flickr.com/photos/{owner or path_alias}/{id}/
---@param photo flickr.Photo
---@return string
function flickr.photo_page_url(photo) end
--@@ helper short_url
---https://flic.kr/p/{base58 of the id}
---@param photo_id flickr.Id
---@return string
function flickr.short_url(photo_id) end
--@@ helper photo_id_from_short_url
---The photo id of a https://flic.kr/p/… URL.
---@param url string
---@return string
function flickr.photo_id_from_short_url(url) end
--@@ helper help
---A method's description, arguments, perms and errors, or a group's methods
---(`print(flickr.help("flickr.photos.search"))`); no name: an overview of the module.
---@param name? string
---@return flickr.Help
function flickr.help(name) end
--@@ helper methods
---The catalog's method names, sorted; with a group, the names under that dotted path (`flickr.methods("flickr.photos")`: photos and its subgroups, not photosets).
---@param prefix? string
---@return string[]
function flickr.methods(prefix) end
--@@ helper text
---An element's text (`_text`, or `_content` in the JSON format).
---@param node table|string|number|nil
---@return string?
function flickr.text(node) end
--@@ helper parse_xml
---Maps an XML answer (a saved one, a fixture) to tables as calls do.
---@param xml string
---@return flickr.Response
function flickr.parse_xml(xml) end
--@@ helper download
---Downloads a photo (an id or a photo table; its url_* extras are used), streamed to disk.
---No size: the original (for a video its own file), else the largest offered.
---@param photo flickr.Photo|flickr.Id
---@param opts? flickr.DownloadOptions
---@return flickr.Downloaded
function flickr.download(photo, opts) end
--@@ helper upload
---Uploads a file (or bytes), streamed in constant memory; returns the photo id, or the ticket
---id with `async = true`. A duplicate (code 9) error carries `duplicate_photo_id`.
---@param args flickr.UploadArgs
---@return string
function flickr.upload(args) end
--@@ helper replace
---Replaces a photo's file (`photo_id` required); returns the photo id (or a ticket id with `async`).
---@param args flickr.UploadArgs
---@return string
function flickr.replace(args) end
--@@ helper check_tickets
---One flickr.photos.upload.checkTickets call.
---@param tickets string|string[]
---@return flickr.Ticket[]
function flickr.check_tickets(tickets) end
--@@ helper wait_tickets
---Polls checkTickets until every ticket is complete or failed.
---@param tickets string|string[]
---@param opts? { timeout?: number, interval?: number }
---@return flickr.Ticket[]
function flickr.wait_tickets(tickets, opts) end
--@@ helper configure
---Changes the settings (explicit over the environment over the profile); an unknown key is a usage error.
---@param settings flickr.Settings
function flickr.configure(settings) end
--@@ helper config
---The settings in force, secrets masked.
---@return flickr.Config
function flickr.config() end
--@@ helper oauth
---OAuth 1.0a.
flickr.oauth = {}
--@@ helper oauth.request_token
---Step 1: a request token and the page where the user authorizes it.
---@param opts? { callback?: string, perms?: "read"|"write"|"delete" }
---@return flickr.RequestToken
function flickr.oauth.request_token(opts) end
--@@ helper oauth.access_token
---Step 2: the access token for the verifier the user got; now in use.
---@param request flickr.RequestToken
---@param verifier string
---@return flickr.AccessToken
function flickr.oauth.access_token(request, verifier) end
--@@ helper oauth.login
---The whole dialog (URL, verifier or a loopback callback), the token saved in the profile (0600).
---@param opts? { perms?: "read"|"write"|"delete", profile?: string, callback?: "oob"|"loopback", save?: boolean, timeout?: number, open?: fun(url: string), verifier?: fun(url: string): string }
---@return flickr.AccessToken
function flickr.oauth.login(opts) end
--@@ helper oauth.check
---flickr.auth.oauth.checkToken: who the token in use belongs to.
---@return { perms: string, user_nsid: string, username: string, fullname: string }
function flickr.oauth.check() end
--@@ helper legacy
---Flickr's legacy (pre-OAuth) authentication, and the migration of its tokens.
flickr.legacy = {}
--@@ helper legacy.login_url
---The legacy login page (api_sig MD5).
---@param opts? { frob?: string, perms?: "read"|"write"|"delete" }
---@return string
function flickr.legacy.login_url(opts) end
--@@ helper legacy.get_frob
---flickr.auth.getFrob.
---@return string
function flickr.legacy.get_frob() end
--@@ helper legacy.get_token
---flickr.auth.getToken; the token is now in use.
---@param frob string
---@return { token: string, perms: string, user_nsid: string, username: string, fullname: string }
function flickr.legacy.get_token(frob) end
--@@ helper legacy.check
---flickr.auth.checkToken of the legacy token in use.
---@return { token: string, perms: string, user_nsid: string, username: string, fullname: string }
function flickr.legacy.check() end
--@@ helper legacy.exchange
---flickr.auth.oauth.getAccessToken: an OAuth token for a legacy one; now in use.
---@param auth_token string
---@return flickr.AccessToken
function flickr.legacy.exchange(auth_token) end
--@@ helper retag
---Retag jobs: `flickr retag` from a script.
flickr.retag = {}
--@@ helper retag.plan
---Plans a retag job (reads only; the job is stored):
---`flickr.retag.plan{ rules = { {"rename", "paris", "Paris"}, {"add", "city trip"}, {"remove", "tram"} } }`.
---@param spec { rules: string[][], query?: table }
---@return flickr.RetagPlan
function flickr.retag.plan(spec) end
--@@ helper edit
---Edit jobs for every piece of a photo's metadata: `flickr edit` from a script.
flickr.edit = {}
--@@ helper edit.plan
---Plans an edit job (reads only; the job is stored).
---@param spec flickr.EditSpec
---@return flickr.EditPlan
function flickr.edit.plan(spec) end
--@@ helper push.plan
---Plans a push of photo folders, as `flickr push plan` (reads only; the job is stored when there
---is something to do).
---@param spec flickr.PushSpec
---@return flickr.PushPlan
function flickr.push.plan(spec) end
--@@ helper jobs
---The retag and edit jobs of this machine.
flickr.jobs = {}
--@@ helper jobs.list
---Every job, as `flickr jobs --json` lists them.
---@return flickr.JobSummary[]
function flickr.jobs.list() end
--@@ helper jobs.resume
---Continues an interrupted job; returns its summary.
---@param id string
---@param progress? fun(done: integer, total: integer)
---@return flickr.JobSummary
function flickr.jobs.resume(id, progress) end
--@@ helper jobs.undo
---Puts back what a job changed, and only that; returns the undo job's summary.
---@param id string
---@param progress? fun(done: integer, total: integer)
---@return flickr.JobSummary
function flickr.jobs.undo(id, progress) end
--@@ helper library
---The library on disk that `flickr sync` keeps; queries make no call.
flickr.library = {}
--@@ helper library.sync
---`flickr sync` in the script; returns its summary.
---@param opts? { deep?: boolean, full?: boolean, progress?: fun(done: integer, total: integer?) }
---@return { account: string, kind: "first"|"full"|"incremental", added: integer, updated: integer, deleted: integer, sets: integer, deep: integer, calls: integer, photos: integer, elapsed: number }
function flickr.library.sync(opts) end
--@@ helper library.photos
---The matching photos, in the filter's order.
---@param filter? flickr.Filter
---@return fun(): flickr.LibraryPhoto?
function flickr.library.photos(filter) end
--@@ helper library.count
---How many photos match.
---@param filter? flickr.Filter
---@return integer
function flickr.library.count(filter) end
--@@ helper library.sets
---Every set, in the account's order.
---@return { id: string, title: string, description: string, photos: integer, videos: integer, members: string[], primary?: string, date_create?: integer, date_update?: integer }[]
function flickr.library.sets() end
--@@ helper library.status
---What the library holds.
---@return { account: string, path: string, schema_version: integer, photos: integer, deleted: integer, deep: integer, sets: integer, last_sync?: integer }
function flickr.library.status() end
--@@ helper library.sql
---One read-only SQL statement over the library's tables, `?` bound from the rest; rows of column → value.
---@param query string
---@param ... string|number|boolean|nil
---@return table<string, string|number>[]
function flickr.library.sql(query, ...) end
--@@ helper Error open
--@@ sandbox
---Under `flickr --sandbox` only: steers the in-process Flickr emulator.
---@class flickr.SandboxControl
---@field url string the emulator's base URL
---@field credentials { api_key: string, api_secret: string, oauth_token: string, oauth_token_secret: string, user_nsid: string, username: string }
---@field faults fun(spec?: string) fault injection: "5xx=1", "429=1"; "" turns it off
---@field latency fun(ms: number)
---@field rate_limit fun(n: integer)
---@field budget fun(n: integer, seconds: number)
---@field requests fun(): integer requests served so far
---@field issue_token fun(opts?: { perms?: "read"|"write"|"delete", username?: string }): { token: string, secret: string }
---@field approve fun(url: string): string the verifier of an authorize URL
sandbox = {}
