/// Typed calls: every method of the catalog as a Swift function, on a namespace that follows
/// Flickr's path.
///
/// ```swift
/// let rsp = try await client.photos.search(userID: "me", tags: ["kyoto"], perPage: 5)
/// try await client.photos.comments.addComment(photoID: id, commentText: "Lovely light")
/// ```
///
/// Each function sends what ``FlickrClient/call(_:_:verb:timeout:strict:)`` would send for the
/// same arguments and returns the same `FlickrNode`, throwing ``FlickrError``. Required
/// arguments come first and have no default; the others are optional and default to nil (not
/// sent). Labels are Flickr's names in lowerCamelCase, with `ID`, `URL`, `NSID` upper-cased
/// after the first word (`photo_id` → `photoID`, `min_upload_date` → `minUploadDate`). Values
/// are encoded as each argument wants: `Int` and `Double` as numbers, `Bool` as 1/0, `Date` as
/// a Unix timestamp, a MySQL datetime or a day (`FlickrDateFormat`, per argument: search's
/// `minUploadDate` is a timestamp, `minTakenDate` a datetime), `[String]` comma-separated or,
/// for the tags `flickr.photos.addTags` and `flickr.photos.setTags` take, as one tag string
/// (`TagString/join(_:)`). Authentication never appears as an argument.
///
/// The namespaces and functions are generated from the catalog by `scripts/generate-methods.py`
/// (its header gives the typing rules); the string form `client.call("flickr.x.y", [...])`
/// stays for anything else.
public enum FlickrMethods {}
