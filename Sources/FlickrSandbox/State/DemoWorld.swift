import Foundation
import FlickrProtocol

/// The built-in world: a few users, a few hundred photos with realistic titles and tags
/// (multi-word and machine tags), sets and favourites. Deterministic: the same seed gives the
/// same world, so scripts and tests can rely on it.
enum DemoWorld {
    static let seed: UInt64 = 0x466C_6963_6B72_2021

    static let people: [(nsid: String, username: String, realname: String, alias: String?, location: String, share: Int)] = [
        ("12037949754@N01", "bees", "Cal Henderson", "bees", "San Francisco, USA", 40),
        ("21207597@N07", "jamalfanaian", "Jamal Fanaian", "jamalf", "Oakland, USA", 20),
        ("48600090482@N01", "hanna.w", "Hanna Weiss", nil, "Vienna, Austria", 15),
        ("35034348178@N01", "kenji_t", "Kenji Tanaka", "kenji", "Kyoto, Japan", 15),
        ("66956608@N06", "marisol", "Marisol Vega", "marisolvega", "Valparaíso, Chile", 10),
    ]

    static let places: [(name: String, tags: [String], country: String)] = [
        ("Amsterdam", ["amsterdam", "\"central station\"", "canal"], "Netherlands"),
        ("San Francisco", ["\"san francisco\"", "\"golden gate\"", "fog"], "United States"),
        ("Kyoto", ["kyoto", "temple", "\"fushimi inari\""], "Japan"),
        ("Vienna", ["vienna", "wien", "\"ringstrasse\""], "Austria"),
        ("Valparaíso", ["valparaíso", "\"street art\"", "hills"], "Chile"),
        ("Reykjavík", ["reykjavík", "iceland", "\"northern lights\""], "Iceland"),
        ("Lisbon", ["lisbon", "tram", "\"alfama\""], "Portugal"),
        ("New York", ["\"new york\"", "nyc", "\"brooklyn bridge\""], "United States"),
        ("Edinburgh", ["edinburgh", "\"old town\"", "castle"], "United Kingdom"),
        ("Cape Town", ["\"cape town\"", "\"table mountain\"", "ocean"], "South Africa"),
    ]

    static let subjects: [(title: String, tags: [String])] = [
        ("Morning fog over the harbour", ["fog", "harbour", "morning"]),
        ("Sunset from the pier", ["sunset", "pier", "\"golden hour\""]),
        ("Tram at dusk", ["tram", "dusk", "\"long exposure\""]),
        ("Rainy street reflections", ["rain", "reflections", "street"]),
        ("Market stall with oranges", ["market", "oranges", "food"]),
        ("Cat on a windowsill", ["cat", "window", "pets"]),
        ("Old bicycle against a wall", ["bicycle", "wall", "\"urban decay\""]),
        ("Kids playing in the fountain", ["fountain", "kids", "summer"]),
        ("Night skyline", ["skyline", "night", "\"city lights\""]),
        ("Autumn leaves in the park", ["autumn", "leaves", "park"]),
        ("Snow on the rooftops", ["snow", "rooftops", "winter"]),
        ("Coffee and a newspaper", ["coffee", "newspaper", "café"]),
        ("Seagulls over the water", ["seagulls", "birds", "water"]),
        ("Staircase from above", ["stairs", "architecture", "\"leading lines\""]),
        ("Portrait of a street musician", ["portrait", "musician", "\"street photography\""]),
        ("Boats in the marina", ["boats", "marina", "sailing"]),
        ("Graffiti on the underpass", ["graffiti", "\"street art\"", "underpass"]),
        ("Cherry blossoms", ["\"cherry blossoms\"", "spring", "sakura"]),
        ("Lighthouse in the storm", ["lighthouse", "storm", "waves"]),
        ("Train station platform", ["train", "station", "travel"]),
    ]

    static let cameras: [(make: String, model: String)] = [
        ("Fujifilm", "X-T3"), ("Canon", "EOS 5D Mark IV"), ("Nikon", "D750"), ("Sony", "ILCE-7M3"),
        ("Apple", "iPhone 12 Pro"), ("Olympus", "E-M10"),
    ]

    static let sizes: [(Int, Int)] = [(4032, 3024), (6000, 4000), (3024, 4032), (5472, 3648), (4000, 6000), (2048, 1365)]

    static let setNames: [String] = ["Best of the year", "Travels", "Street", "Family", "Black and white", "Cities at night"]

    /// Builds the world.
    static func make(photoCount: Int = 320) -> SandboxState {
        var rng = SeededGenerator(seed: seed)
        var state = SandboxState(
            app: SandboxApp(apiKey: SandboxIDs.hex(32), apiSecret: SandboxIDs.hex(16)),
            defaultUser: people[0].nsid, users: [], photos: [:], photosets: [], favorites: [], tokens: [:],
            frobs: [:], tickets: [:], tagNumbers: [:], nextPhotoID: 52_000_000_000, nextPhotosetID: 1,
            nextTagNumber: 1000, nextTicket: 1)
        for (i, p) in people.enumerated() {
            state.users.append(SandboxUser(
                nsid: p.nsid, username: p.username, realname: p.realname, pathAlias: p.alias, location: p.location,
                description: "Photos by \(p.realname).", isPro: i % 2 == 0, internalID: 30_000_000 + i * 7919,
                dateJoined: 1_100_000_000 + i * 86_400 * 30, email: p.username + "@example.com"))
        }
        let totalShare = people.reduce(0) { $0 + $1.share }
        var owners: [String] = []
        for p in people {
            owners += Array(repeating: p.nsid, count: max(1, photoCount * p.share / totalShare))
        }
        while owners.count < photoCount { owners.append(people[0].nsid) }
        var posted = 1_420_070_400  // 2015-01-01
        for n in 0..<photoCount {
            let owner = owners[n]
            let place = places[Int(rng.next() % UInt64(places.count))]
            let subject = subjects[Int(rng.next() % UInt64(subjects.count))]
            let camera = cameras[Int(rng.next() % UInt64(cameras.count))]
            let (w, h) = sizes[Int(rng.next() % UInt64(sizes.count))]
            posted += 3600 + Int(rng.next() % 900_000)
            let taken = posted - Int(rng.next() % 400_000)
            let id = state.newPhotoID()
            var tagString = (place.tags + subject.tags).joined(separator: " ")
            tagString += " camera:make=\(camera.make) \"camera:model=\(camera.model)\""
            tagString += " \"geo:country=\(place.country)\""
            if n % 7 == 0 { tagString += " dc:subject=\(subject.tags[0].replacingOccurrences(of: "\"", with: ""))" }
            if n % 5 == 0 { tagString += " \"Photo Walk \(2015 + n % 10)\"" }
            let isPublic = n % 11 != 3
            var photo = SandboxPhoto(SandboxPhotoRecord(
                id: id, owner: owner, secret: SandboxIDs.hex(10, using: &rng), server: "65535", farm: 66,
                originalSecret: SandboxIDs.hex(10, using: &rng), originalFormat: "jpg",
                title: subject.title + ", " + place.name,
                description: n % 3 == 0 ? "" : "Taken in \(place.name) with a \(camera.make) \(camera.model).",
                datePosted: posted, dateTaken: SandboxDates.format(taken), takenGranularity: 0, lastUpdate: posted + 120,
                isPublic: isPublic, isFriend: !isPublic && n % 2 == 0, isFamily: !isPublic && n % 3 == 0, safetyLevel: 1,
                license: [0, 1, 2, 4, 7][n % 5], views: Int(rng.next() % 5000), media: n % 37 == 0 ? "video" : "photo",
                width: w, height: h, rotation: 0, contentType: 1, hidden: 1, permComment: 3, permAddMeta: 2,
                tags: [], storedFile: nil, contentHash: nil, fileSize: nil))
            let author = state.user(nsid: owner)!
            for raw in TagString.parse(tagString).prefix(SandboxLimits.tagsPerPhoto) {
                photo.tags.append(state.makeTag(raw: raw, author: author, photoID: id))
            }
            state.photos[id] = photo
        }
        // A visitor's tag on some of the default user's photos (tags by another author).
        let defaultPhotos = state.photos.values.filter { $0.owner == people[0].nsid }.sorted { $0.id < $1.id }
        let visitor = state.user(nsid: people[1].nsid)!
        for photo in defaultPhotos.prefix(12) {
            let tag = state.makeTag(raw: "great shot", author: visitor, photoID: photo.id)
            state.photos[photo.id]?.tags.append(tag)
        }
        // Sets: a few per user.
        for (i, p) in people.enumerated() {
            let mine = state.photos.values.filter { $0.owner == p.nsid }.sorted { $0.id < $1.id }
            guard !mine.isEmpty else { continue }
            for s in 0..<(i == 0 ? 4 : 2) {
                let name = setNames[(i + s) % setNames.count]
                let members = mine.enumerated().filter { ($0.offset + s) % (3 + s) == 0 }.map(\.element.id)
                guard let primary = members.first else { continue }
                let created = mine[0].datePosted + s * 86_400
                state.photosets.append(SandboxPhotoset(
                    id: String(72_157_600_000_000_000 + state.nextPhotosetID), owner: p.nsid, title: name,
                    description: "\(name) — a selection by \(p.realname).", primary: primary, photos: members,
                    secret: SandboxIDs.hex(10, using: &rng), dateCreate: created, dateUpdate: created + 3600,
                    views: Int(rng.next() % 900)))
                state.nextPhotosetID += 1
            }
        }
        // Favourites: everyone likes some public photos of others.
        let publicPhotos = state.photos.values.filter(\.isPublic).sorted { $0.id < $1.id }
        for p in people {
            let others = publicPhotos.filter { $0.owner != p.nsid }
            for photo in others.enumerated().filter({ $0.offset % 9 == Int(p.nsid.utf8.count % 9) }).map(\.element).prefix(15) {
                state.favorites.append(SandboxFavorite(user: p.nsid, photo: photo.id, date: photo.datePosted + 86_400))
            }
        }
        addCommunity(to: &state)
        return state
    }
}

/// Fixed limits of the emulated service.
enum SandboxLimits {
    /// Flickr's limit of tags per photo (err 2 beyond it).
    static let tagsPerPhoto = 75
    static let maxPerPage = 500
    static let defaultPerPage = 100
    /// `flickr.photos.search` reaches only the first 4,000 results of a query (Flickr's
    /// documented cap; `people.getPhotos` and `photosets.getPhotos` have none).
    static let searchCap = 4_000
    /// Notes per photo before error 4.
    static let notesPerPhoto = 100
    /// Photos per gallery.
    static let photosPerGallery = 500
    /// Longest discussion message, in bytes.
    static let messageBytes = 65_536
}

extension SandboxState {
    /// A new tag with Flickr's id shape.
    mutating func makeTag(raw: String, author: SandboxUser, photoID: String) -> SandboxTag {
        let clean = TagString.clean(raw)
        let number = tagNumber(for: clean)
        return SandboxTag(id: "\(author.internalID)-\(photoID)-\(number)", author: author.nsid, raw: raw, clean: clean,
                          isMachineTag: TagString.isMachineTag(raw))
    }
}
