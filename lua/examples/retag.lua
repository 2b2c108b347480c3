-- Batch retagging on flickr.retag: rename tags across all of your photos.
--
--   flickr retag.lua [--dry-run] old=new [old2=new2 ...]
--
-- The plan reads only (one listing call per 500 photos, one read per photo to change) and is
-- stored as a job before anything is written; apply writes through a journal, so an
-- interrupted run continues with `flickr retag resume` and `flickr retag undo` reverses it.
-- Multi-word tags: write them as they are, e.g. "black cat=black kitten".

local flickr = require "flickr"

local dry_run, rules = false, {}
for _, a in ipairs(arg) do
  if a == "--dry-run" then
    dry_run = true
  else
    local old, new = a:match("^(.-)=(.*)$")
    if not old or old == "" or new == "" then
      io.stderr:write("usage: retag.lua [--dry-run] old=new ...\n")
      os.exit(2)
    end
    rules[#rules + 1] = { "rename", old, new }
  end
end
if #rules == 0 then
  io.stderr:write("retag.lua: nothing to rename (give old=new pairs)\n")
  os.exit(2)
end

local plan = flickr.retag.plan{ rules = rules }
print(plan:diff())
if dry_run then
  print(("would change %d photo(s) (dry run); apply later with: flickr retag apply %s"):format(#plan.photos, plan.job))
  return
end
local summary = plan:apply{ progress = function(done, total) io.stderr:write(("\r%d/%d"):format(done, total)) end }
io.stderr:write("\n")
print(("changed %d photo(s) in %d calls (job %s)"):format(summary.done, summary.calls, summary.id))
if summary.state ~= "done" then
  print(("%d failed, %d conflicts: see flickr jobs show %s"):format(summary.failed, summary.conflicts, summary.id))
  os.exit(1)
end
