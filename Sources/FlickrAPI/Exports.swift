// `import FlickrAPI` is the one import an application needs: the types its public API uses —
// FlickrNode, FlickrMap, TagString, FlickrErrorCode, FlickrPermission, the method catalog — are
// FlickrProtocol's, and come with it. What only the tools use there is `package`, not public.
@_exported import FlickrProtocol
