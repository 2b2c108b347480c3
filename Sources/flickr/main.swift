print("flickr: coming soon")
