import Foundation

/// The system's error behind what Foundation throws for a file, so that a message can give the
/// system's own words (Permission denied, Read-only file system) and a full disk be told apart.
package enum SystemErrors {
    /// The errno behind a Foundation file error: the error itself when it is a POSIX one, its
    /// underlying POSIX error, else the one its Cocoa code stands for; nil when none is known.
    package static func posixCode(_ error: any Error) -> Int32? {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return Int32(ns.code) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        switch (error as? CocoaError)?.code {
        case .fileWriteVolumeReadOnly?: return EROFS
        case .fileWriteNoPermission?, .fileReadNoPermission?: return EACCES
        case .fileWriteOutOfSpace?: return ENOSPC
        case .fileWriteFileExists?: return EEXIST
        default: return nil
        }
    }
}
