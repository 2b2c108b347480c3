print("flickr-sandbox: coming soon")
