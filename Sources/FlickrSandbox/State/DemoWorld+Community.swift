extension DemoWorld {
    /// Where each of ``places`` is (latitude, longitude).
    static let coordinates: [String: (Double, Double)] = [
        "Amsterdam": (52.3791, 4.9003), "San Francisco": (37.8199, -122.4783), "Kyoto": (34.9671, 135.7727),
        "Vienna": (48.2049, 16.3632), "Valparaíso": (-33.0472, -71.6127), "Reykjavík": (64.1466, -21.9426),
        "Lisbon": (38.7139, -9.1334), "New York": (40.7061, -73.9969), "Edinburgh": (55.9486, -3.1999),
        "Cape Town": (-33.9628, 18.4098),
    ]

    /// Groups, galleries, locations, comments, notes and people for the demo world: enough of
    /// each that every reader has something to show and every writer something to change.
    static func addCommunity(to state: inout SandboxState) {
        let nsids = people.map(\.nsid)
        let photos = state.photos.values.sorted { $0.id < $1.id }
        // Locations: two photos in three carry the place of their title, public to everyone.
        for (n, photo) in photos.enumerated() where n % 3 != 2 {
            guard let place = photo.title.split(separator: ",").last?.trimmingCharacters(in: .whitespaces),
                  let (lat, lon) = coordinates[place] else { continue }
            state.photos[photo.id]!.geo = SandboxGeo(latitude: lat, longitude: lon, accuracy: 16, context: n % 2 + 1)
        }
        // Comments, notes and people on some public photos.
        let publicPhotos = photos.filter(\.isPublic)
        for (n, photo) in publicPhotos.enumerated() where n % 6 == 0 {
            let author = nsids[(n / 6 + 1) % nsids.count] == photo.owner ? nsids[(n / 6 + 2) % nsids.count] : nsids[(n / 6 + 1) % nsids.count]
            let date = photo.datePosted + 7200
            state.photos[photo.id]!.comments.append(SandboxComment(
                id: state.commentID(author: author, target: photo.id), author: author, text: "Lovely light in this one.",
                dateCreate: date))
            if n % 12 == 0 {
                state.photos[photo.id]!.notes.append(SandboxNote(
                    id: state.community.newNumber(), author: photo.owner, x: 10, y: 10, w: 50, h: 50, text: "Look here"))
                state.photos[photo.id]!.people.append(SandboxPersonTag(user: author, addedBy: photo.owner, box: [20, 20, 80, 120]))
            }
        }
        // Groups: open, open with rules to accept, private (join by request).
        let groups: [(String, String, Int, String)] = [
            ("34427465497@N01", "GNEverybody", 3, ""),
            ("46744914@N00", "Street Photography", 3, "Only street photographs, please. No flash."),
            ("52240293230@N01", "Night Owls (private)", 1, "Members post night shots only."),
        ]
        for (i, g) in groups.enumerated() {
            let members = nsids.enumerated().filter { ($0.offset + i) % 2 == 0 }.map(\.element)
            var group = SandboxGroup(nsid: g.0, name: g.1, description: "A sandbox group: \(g.1).", privacy: g.2, rules: g.3,
                                     admins: [members[0]], members: members, joinRequests: [:], pool: [], topics: [])
            for (n, photo) in publicPhotos.enumerated() where members.contains(photo.owner) && (n + i) % 9 == 0 {
                group.pool.append(SandboxPoolItem(photo: photo.id, addedBy: photo.owner, dateAdded: photo.datePosted + 86_400))
            }
            let topicID = state.community.newNumber()
            group.topics.append(SandboxTopic(
                id: topicID, author: members[0], subject: "Welcome to \(g.1)", message: "Introduce yourself here.",
                dateCreate: 1_500_000_000 + i * 86_400,
                replies: [SandboxDiscussionReply(id: state.community.newNumber(), author: members.last!, message: "Hello!",
                                                 dateCreate: 1_500_003_600 + i * 86_400, lastEdit: 0)]))
            state.community.groups.append(group)
        }
        // Galleries: each member curates others' public photos.
        for (i, nsid) in nsids.enumerated() {
            let picks = publicPhotos.filter { $0.owner != nsid }.enumerated().filter { ($0.offset + i) % 25 == 0 }.map(\.element.id)
            guard let first = picks.first else { continue }
            let internalID = state.user(nsid: nsid)?.internalID ?? 0
            state.community.galleries.append(SandboxGallery(
                id: "\(internalID)-\(state.community.newNumber())", owner: nsid, title: "Favourites of \(people[i].realname)",
                description: "Photos by others I keep coming back to.", primary: first, photos: Array(picks.prefix(12)),
                comments: [first: "Where it all started."], dateCreate: 1_550_000_000 + i * 86_400,
                dateUpdate: 1_550_000_000 + i * 86_400))
        }
    }
}
