/// Flickr's global error codes (https://www.flickr.com/services/api/, every method page) and the
/// upload codes (upload.api.html). Method-specific codes (1, 2, …) come from the catalog.
public enum FlickrErrorCode {
    public static let sslRequired = 95
    public static let invalidSignature = 96
    public static let missingSignature = 97
    public static let loginFailed = 98
    public static let insufficientPermissions = 99
    public static let invalidAPIKey = 100
    public static let serviceUnavailable = 105
    public static let writeFailed = 106
    public static let invalidFrob = 108
    public static let formatNotFound = 111
    public static let methodNotFound = 112
    public static let badURL = 116
    public static let temporarilyUnavailable = 201
    /// Upload: "Duplicate photo/video detected" (with `dedup_check`), answer carries `duplicate_photo_id`.
    public static let duplicatePhoto = 9

    /// Codes Flickr uses for transient trouble: retrying a read after them is safe.
    public static func isTransient(_ code: Int) -> Bool {
        code == serviceUnavailable || code == temporarilyUnavailable || code == 0
    }

    /// Flickr's standard message for a global code.
    public static func message(for code: Int) -> String? {
        switch code {
        case 95: return "SSL is required"
        case 96: return "Invalid signature"
        case 97: return "Missing signature"
        case 98: return "Invalid auth token"
        case 99: return "Insufficient permissions"
        case 100: return "Invalid API Key"
        case 105: return "Service currently unavailable"
        case 106: return "Write operation failed"
        case 108: return "Invalid frob"
        case 111: return "Format not found"
        case 112: return "Method not found"
        case 114: return "Invalid SOAP envelope"
        case 115: return "Invalid XML-RPC Method Call"
        case 116: return "Bad URL found"
        case 201: return "Sorry, the Flickr API service is not currently available."
        default: return nil
        }
    }
}
