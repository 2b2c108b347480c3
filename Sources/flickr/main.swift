// The `flickr` command: everything lives in FlickrShell.
import FlickrShell
import Foundation

exit(await FlickrShell.main(CommandLine.arguments))
