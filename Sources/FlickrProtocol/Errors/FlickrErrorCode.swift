/// A Flickr API error code, by name.
///
/// The global codes (https://www.flickr.com/services/api/, every method page) and the upload
/// codes (https://www.flickr.com/services/api/upload.api.html) mean the same in every method.
/// The others are method-specific: each method numbers its own errors from 1 (the catalog,
/// `MethodCatalog`, holds each method's documented list), so a name here says what the error
/// reports, and where methods give the same error different numbers, the number too
/// (`photoNotFound` is 1, `photoNotFoundCode2` the same error where a method documents it as 2).
public struct FlickrErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number Flickr answers with (`code` of `<err>`).
    public let rawValue: Int

    /// The code numbered `rawValue`, named here or not.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The form `description` shows: the number.
    public var description: String { String(rawValue) }

    // MARK: Global codes
    /// 96 "Invalid signature".
    public static let invalidSignature = FlickrErrorCode(rawValue: 96)
    /// 97 "Missing signature".
    public static let missingSignature = FlickrErrorCode(rawValue: 97)
    /// 98 "Login failed / Invalid auth token".
    public static let loginFailed = FlickrErrorCode(rawValue: 98)
    /// 99 "Insufficient permissions".
    public static let insufficientPermissions = FlickrErrorCode(rawValue: 99)
    /// 100 "Invalid API Key".
    public static let invalidAPIKey = FlickrErrorCode(rawValue: 100)
    /// 105 "Service currently unavailable".
    public static let serviceUnavailable = FlickrErrorCode(rawValue: 105)
    /// 106 "Write operation failed".
    public static let writeFailed = FlickrErrorCode(rawValue: 106)
    /// 108 "Invalid frob".
    public static let invalidFrob = FlickrErrorCode(rawValue: 108)
    /// 111 "Format not found".
    public static let formatNotFound = FlickrErrorCode(rawValue: 111)
    /// 112 "Method not found".
    public static let methodNotFound = FlickrErrorCode(rawValue: 112)
    /// 116 "The POST method is now required for all setters (a setter called with GET)".
    public static let postRequired = FlickrErrorCode(rawValue: 116)
    /// 201 "Sorry, the Flickr API service is not currently available.".
    public static let temporarilyUnavailable = FlickrErrorCode(rawValue: 201)

    // MARK: Upload codes

    /// 2 "No photo specified".
    public static let noPhotoSpecified = FlickrErrorCode(rawValue: 2)
    /// 3 "General upload failure".
    public static let generalUploadFailure = FlickrErrorCode(rawValue: 3)
    /// 4 "Filesize was zero".
    public static let filesizeWasZero = FlickrErrorCode(rawValue: 4)
    /// 5 "Filetype was not recognised".
    public static let filetypeWasNotRecognised = FlickrErrorCode(rawValue: 5)
    /// 8 "Filesize was too large" (a photo over 200 MB, a video over 1 GB: ``UploadLimits``).
    public static let filesizeTooLarge = FlickrErrorCode(rawValue: 8)
    /// 9 "Duplicate photo/video detected" (with `dedup_check`); the answer carries `duplicate_photo_id`.
    public static let duplicatePhoto = FlickrErrorCode(rawValue: 9)

    // MARK: Method-specific codes (what the sandbox answers)

    /// 1 "Blog not found".
    public static let blogNotFound = FlickrErrorCode(rawValue: 1)
    /// 1 "Gallery not found".
    public static let galleryNotFound = FlickrErrorCode(rawValue: 1)
    /// 1 "Group not found".
    public static let groupNotFound = FlickrErrorCode(rawValue: 1)
    /// 1 "Invalid gallery ID".
    public static let invalidGalleryID = FlickrErrorCode(rawValue: 1)
    /// 1 "Invalid NSID provided".
    public static let invalidNSIDProvided = FlickrErrorCode(rawValue: 1)
    /// 1 "Invalid period".
    public static let invalidPeriod = FlickrErrorCode(rawValue: 1)
    /// 1 "Invalid user id".
    public static let invalidUserID = FlickrErrorCode(rawValue: 1)
    /// 1 "Method not found".
    public static let methodNotFoundCode1 = FlickrErrorCode(rawValue: 1)
    /// 1 "No dates specified".
    public static let noDatesSpecified = FlickrErrorCode(rawValue: 1)
    /// 1 "Not a valid date string.".
    public static let notAValidDateString = FlickrErrorCode(rawValue: 1)
    /// 1 "Not a valid namespace".
    public static let notAValidNamespace = FlickrErrorCode(rawValue: 1)
    /// 1 "Not a valid predicate.".
    public static let notAValidPredicateCode1 = FlickrErrorCode(rawValue: 1)
    /// 1 "Note not found".
    public static let noteNotFound = FlickrErrorCode(rawValue: 1)
    /// 1 "No title specified".
    public static let noTitleSpecified = FlickrErrorCode(rawValue: 1)
    /// 1 "Person not found".
    public static let personNotFound = FlickrErrorCode(rawValue: 1)
    /// 1 "Photo not found".
    public static let photoNotFound = FlickrErrorCode(rawValue: 1)
    /// 1 "Photo "ID" not found (invalid ID)".
    public static let photoNotFoundInvalidID = FlickrErrorCode(rawValue: 1)
    /// 1 "Photo not in favorites".
    public static let photoNotInFavorites = FlickrErrorCode(rawValue: 1)
    /// 1 "Photo not in pool".
    public static let photoNotInPool = FlickrErrorCode(rawValue: 1)
    /// 1 "Photoset not found".
    public static let photosetNotFound = FlickrErrorCode(rawValue: 1)
    /// 1 "Required argument missing.".
    public static let requiredArgumentMissing = FlickrErrorCode(rawValue: 1)
    /// 1 "Required arguments missing".
    public static let requiredArgumentsMissing = FlickrErrorCode(rawValue: 1)
    /// 1 "Required parameter missing".
    public static let requiredParameterMissing = FlickrErrorCode(rawValue: 1)
    /// 1 "Set not found".
    public static let setNotFound = FlickrErrorCode(rawValue: 1)
    /// 1 "Suggestion not found".
    public static let suggestionNotFound = FlickrErrorCode(rawValue: 1)
    /// 1 "Tag cluster not found".
    public static let tagClusterNotFound = FlickrErrorCode(rawValue: 1)
    /// 1 "Tag not found".
    public static let tagNotFound = FlickrErrorCode(rawValue: 1)
    /// 1 "Too many tags in ALL query".
    public static let tooManyTagsInAllQuery = FlickrErrorCode(rawValue: 1)
    /// 1 "Topic not found".
    public static let topicNotFound = FlickrErrorCode(rawValue: 1)
    /// 1 "User not found".
    public static let userNotFound = FlickrErrorCode(rawValue: 1)
    /// 2 "At least one of title or description must be set".
    public static let atLeastOneOfTitleOrDescriptionMustBeSet = FlickrErrorCode(rawValue: 2)
    /// 2 "Cannot post to group".
    public static let cannotPostToGroup = FlickrErrorCode(rawValue: 2)
    /// 2 "Comment not found.".
    public static let commentNotFound = FlickrErrorCode(rawValue: 2)
    /// 2 "Group does not exist".
    public static let groupDoesNotExist = FlickrErrorCode(rawValue: 2)
    /// 2 "Group not found".
    public static let groupNotFoundCode2 = FlickrErrorCode(rawValue: 2)
    /// 2 "Invalid gallery ID".
    public static let invalidGalleryIDCode2 = FlickrErrorCode(rawValue: 2)
    /// 2 "Invalid or missing arguments".
    public static let invalidOrMissingArguments = FlickrErrorCode(rawValue: 2)
    /// 2 "Invalid photo ID".
    public static let invalidPhotoID = FlickrErrorCode(rawValue: 2)
    /// 2 "Invalid rotation".
    public static let invalidRotation = FlickrErrorCode(rawValue: 2)
    /// 2 "Invalid title or description".
    public static let invalidTitleOrDescription = FlickrErrorCode(rawValue: 2)
    /// 2 "License not found".
    public static let licenseNotFound = FlickrErrorCode(rawValue: 2)
    /// 2 "Maximum number of tags reached".
    public static let maximumNumberOfTagsReached = FlickrErrorCode(rawValue: 2)
    /// 2 "Missing place ID".
    public static let missingPlaceID = FlickrErrorCode(rawValue: 2)
    /// 2 "No photos found".
    public static let noPhotosFound = FlickrErrorCode(rawValue: 2)
    /// 2 "Not a valid context".
    public static let notAValidContext = FlickrErrorCode(rawValue: 2)
    /// 2 "Not a valid date".
    public static let notAValidDate = FlickrErrorCode(rawValue: 2)
    /// 2 "Not a valid latitude".
    public static let notAValidLatitudeCode2 = FlickrErrorCode(rawValue: 2)
    /// 2 "Not a valid predicate".
    public static let notAValidPredicate = FlickrErrorCode(rawValue: 2)
    /// 2 "Not enough arguments".
    public static let notEnoughArguments = FlickrErrorCode(rawValue: 2)
    /// 2 "No title specified".
    public static let noTitleSpecifiedCode2 = FlickrErrorCode(rawValue: 2)
    /// 2 "No user specified".
    public static let noUserSpecified = FlickrErrorCode(rawValue: 2)
    /// 2 "Photo has no location information".
    public static let photoHasNoLocationInformation = FlickrErrorCode(rawValue: 2)
    /// 2 "Photo is owned by you".
    public static let photoIsOwnedByYou = FlickrErrorCode(rawValue: 2)
    /// 2 "Photo not found".
    public static let photoNotFoundCode2 = FlickrErrorCode(rawValue: 2)
    /// 2 "Photo not in gallery".
    public static let photoNotInGallery = FlickrErrorCode(rawValue: 2)
    /// 2 "Photo not in pool".
    public static let photoNotInPoolCode2 = FlickrErrorCode(rawValue: 2)
    /// 2 "Photo not in set".
    public static let photoNotInSet = FlickrErrorCode(rawValue: 2)
    /// 2 "Reply not found".
    public static let replyNotFound = FlickrErrorCode(rawValue: 2)
    /// 2 "Required arguments missing".
    public static let requiredArgumentsMissingCode2 = FlickrErrorCode(rawValue: 2)
    /// 2 "Testimonial not found".
    public static let testimonialNotFound = FlickrErrorCode(rawValue: 2)
    /// 2 "Unable to save testimonial".
    public static let unableToSaveTestimonial = FlickrErrorCode(rawValue: 2)
    /// 2 "Unknown user".
    public static let unknownUser = FlickrErrorCode(rawValue: 2)
    /// 2 "User cannot add notes".
    public static let userCannotAddNotes = FlickrErrorCode(rawValue: 2)
    /// 2 "User cannot delete note".
    public static let userCannotDeleteNote = FlickrErrorCode(rawValue: 2)
    /// 2 "User cannot edit note".
    public static let userCannotEditNote = FlickrErrorCode(rawValue: 2)
    /// 2 "User not found".
    public static let userNotFoundCode2 = FlickrErrorCode(rawValue: 2)
    /// 2 "You cannot suggest a location for your own photo".
    public static let youCannotSuggestALocationForYourOwnPhoto = FlickrErrorCode(rawValue: 2)
    /// 3 "Account is not in that group".
    public static let accountIsNotInThatGroup = FlickrErrorCode(rawValue: 3)
    /// 3 "Cannot delete reply".
    public static let cannotDeleteReply = FlickrErrorCode(rawValue: 3)
    /// 3 "Failed to add gallery".
    public static let failedToAddGallery = FlickrErrorCode(rawValue: 3)
    /// 3 "Insufficient permission to remove photo".
    public static let insufficientPermissionToRemovePhoto = FlickrErrorCode(rawValue: 3)
    /// 3 "Invalid date".
    public static let invalidDate = FlickrErrorCode(rawValue: 3)
    /// 3 "Invalid granularity".
    public static let invalidGranularity = FlickrErrorCode(rawValue: 3)
    /// 3 "Invalid photo ID".
    public static let invalidPhotoIDCode3 = FlickrErrorCode(rawValue: 3)
    /// 3 "Message is too long".
    public static let messageIsTooLong = FlickrErrorCode(rawValue: 3)
    /// 3 "Missing required arguments".
    public static let missingRequiredArguments = FlickrErrorCode(rawValue: 3)
    /// 3 "Not a valid latitude.".
    public static let notAValidLatitude = FlickrErrorCode(rawValue: 3)
    /// 3 "Not a valid longitude".
    public static let notAValidLongitudeCode3 = FlickrErrorCode(rawValue: 3)
    /// 3 "Not a valid place ID".
    public static let notAValidPlaceID = FlickrErrorCode(rawValue: 3)
    /// 3 "Parameterless searches have been disabled. Please use flickr.photos.getRecent instead.".
    public static let parameterlessSearchesHaveBeenDisabled = FlickrErrorCode(rawValue: 3)
    /// 3 "Photo already in pool".
    public static let photoAlreadyInPool = FlickrErrorCode(rawValue: 3)
    /// 3 "Photo already in set".
    public static let photoAlreadyInSet = FlickrErrorCode(rawValue: 3)
    /// 3 "Photo is already in favorites".
    public static let photoIsAlreadyInFavorites = FlickrErrorCode(rawValue: 3)
    /// 3 "Photo not a favorite".
    public static let photoNotAFavorite = FlickrErrorCode(rawValue: 3)
    /// 3 "Photo not in set".
    public static let photoNotInSetCode3 = FlickrErrorCode(rawValue: 3)
    /// 3 "Primary photo not found".
    public static let primaryPhotoNotFound = FlickrErrorCode(rawValue: 3)
    /// 3 "Primary photo not in list".
    public static let primaryPhotoNotInList = FlickrErrorCode(rawValue: 3)
    /// 3 "Required arguments missing.".
    public static let requiredArgumentsMissingCode3 = FlickrErrorCode(rawValue: 3)
    /// 3 "Temporary failure".
    public static let temporaryFailure = FlickrErrorCode(rawValue: 3)
    /// 3 "Testimonial already approved".
    public static let testimonialAlreadyApproved = FlickrErrorCode(rawValue: 3)
    /// 3 "User cannot edit that person in that photo".
    public static let userCannotEditThatPersonInThatPhoto = FlickrErrorCode(rawValue: 3)
    /// 3 "User cannot remove that person".
    public static let userCannotRemoveThatPerson = FlickrErrorCode(rawValue: 3)
    /// 4 "Account is already in that group".
    public static let accountIsAlreadyInThatGroup = FlickrErrorCode(rawValue: 4)
    /// 4 "Blog post failed".
    public static let blogPostFailed = FlickrErrorCode(rawValue: 4)
    /// 4 "Cannot edit reply".
    public static let cannotEditReply = FlickrErrorCode(rawValue: 4)
    /// 4 "Invalid date_posted".
    public static let invalidDatePosted = FlickrErrorCode(rawValue: 4)
    /// 4 "Maximum number of notes reached".
    public static let maximumNumberOfNotesReached = FlickrErrorCode(rawValue: 4)
    /// 4 "Missing required arguments".
    public static let missingRequiredArgumentsCode4 = FlickrErrorCode(rawValue: 4)
    /// 4 "Not a valid accuracy".
    public static let notAValidAccuracy = FlickrErrorCode(rawValue: 4)
    /// 4 "Not a valid longitude.".
    public static let notAValidLongitude = FlickrErrorCode(rawValue: 4)
    /// 4 "Photo not found".
    public static let photoNotFoundCode4 = FlickrErrorCode(rawValue: 4)
    /// 4 "Primary photo not in list".
    public static let primaryPhotoNotInListCode4 = FlickrErrorCode(rawValue: 4)
    /// 4 "Some co-ordinate paramters were blank".
    public static let someCoOrdinateParamtersWereBlankCode4 = FlickrErrorCode(rawValue: 4)
    /// 4 "Testimonial already written for this user".
    public static let testimonialAlreadyWrittenForThisUser = FlickrErrorCode(rawValue: 4)
    /// 4 "Unable to save testimonial".
    public static let unableToSaveTestimonialCode4 = FlickrErrorCode(rawValue: 4)
    /// 4 "User cannot add people to that photo".
    public static let userCannotAddPeopleToThatPhoto = FlickrErrorCode(rawValue: 4)
    /// 4 "User cannot see photo".
    public static let userCannotSeePhoto = FlickrErrorCode(rawValue: 4)
    /// 5 "Empty photos list".
    public static let emptyPhotosList = FlickrErrorCode(rawValue: 5)
    /// 5 "Failed to add photo".
    public static let failedToAddPhoto = FlickrErrorCode(rawValue: 5)
    /// 5 "Group is public and open".
    public static let groupIsPublicAndOpen = FlickrErrorCode(rawValue: 5)
    /// 5 "Invalid Date Taken Format".
    public static let invalidDateTakenFormat = FlickrErrorCode(rawValue: 5)
    /// 5 "Invalid sort".
    public static let invalidSort = FlickrErrorCode(rawValue: 5)
    /// 5 "Membership in group is by invitation only.".
    public static let membershipInGroupIsByInvitationOnly = FlickrErrorCode(rawValue: 5)
    /// 5 "No co-ordinates given".
    public static let noCoOrdinatesGiven = FlickrErrorCode(rawValue: 5)
    /// 5 "Not a valid accuracy.".
    public static let notAValidAccuracyCode5 = FlickrErrorCode(rawValue: 5)
    /// 5 "Not a valid Places ID".
    public static let notAValidPlacesID = FlickrErrorCode(rawValue: 5)
    /// 6 "No photos geotagged at that location".
    public static let noPhotosGeotaggedAtThatLocation = FlickrErrorCode(rawValue: 6)
    /// 6 "Some co-ordinate paramters were blank".
    public static let someCoOrdinateParamtersWereBlank = FlickrErrorCode(rawValue: 6)
    /// 6 "User must accept the group rules before joining".
    public static let userMustAcceptTheGroupRulesBeforeJoining = FlickrErrorCode(rawValue: 6)
    /// 7 "Can't add that person to a non-public photo".
    public static let cantAddThatPersonToANonPublicPhoto = FlickrErrorCode(rawValue: 7)
    /// 7 "User has already requested to join that group".
    public static let userHasAlreadyRequestedToJoinThatGroup = FlickrErrorCode(rawValue: 7)
    /// 8 "Blank comment".
    public static let blankComment = FlickrErrorCode(rawValue: 8)
    /// 10 "Maximum number of photos in set" (`photosets.addPhoto`).
    public static let maximumNumberOfPhotosInSet = FlickrErrorCode(rawValue: 10)
    /// 11 "No valid machine tags".
    public static let noValidMachineTags = FlickrErrorCode(rawValue: 11)

    /// Whether an error answered with `code` (nil: none) is this one.
    public func matches(_ code: Int?) -> Bool { code == rawValue }

    /// Codes Flickr uses for transient trouble: retrying a read after them is safe.
    public static func isTransient(_ code: Int) -> Bool {
        code == serviceUnavailable.rawValue || code == temporarilyUnavailable.rawValue || code == 0
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
