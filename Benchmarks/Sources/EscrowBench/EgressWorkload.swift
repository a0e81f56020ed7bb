/// The apps and hosts of the egress benchmarks: each app's own hosts (several subdomains of
/// its registrable domain, some under multi-label public suffixes) and the tracker hosts its
/// code also contacts (each under a domain of EasyList or EasyPrivacy, checked by the benchmark),
/// with the share of its requests that go to trackers.
enum EgressWorkload {
    struct App {
        let id: String
        let purpose: String
        let firstParty: [String]
        let trackers: [String]
        /// Of every 10 requests of a run, how many go to a tracker host.
        let trackerRequestsPerTen: Int
    }

    static let apps: [App] = [
        App(id: "org.example.weather", purpose: "show the weather where I am",
            firstParty: ["api.weather-example.com", "tiles.weather-example.com", "cdn.weather-example.com"],
            trackers: ["www.google-analytics.com", "api.mixpanel.com"], trackerRequestsPerTen: 2),
        App(id: "org.example.news", purpose: "show news near me",
            firstParty: ["www.news-example.co.uk", "img.news-example.co.uk", "api.news-example.co.uk", "static.news-example.co.uk",
                         "comments.news-example.co.uk"],
            trackers: ["securepubads.g.doubleclick.net", "pagead2.googlesyndication.com", "sb.scorecardresearch.com",
                       "www.googletagmanager.com", "bidder.criteo.com"], trackerRequestsPerTen: 5),
        App(id: "org.example.fitness", purpose: "count my steps",
            firstParty: ["api.fitness-example.io", "sync.fitness-example.io"],
            trackers: ["api2.amplitude.com", "app.adjust.com"], trackerRequestsPerTen: 3),
        App(id: "org.example.shop", purpose: "offers near me",
            firstParty: ["www.shop-example.com.au", "api.shop-example.com.au", "images.shop-example.com.au", "search.shop-example.com.au"],
            trackers: ["api.segment.io", "script.hotjar.com", "bidder.criteo.com", "api2.branch.io"], trackerRequestsPerTen: 4),
        App(id: "org.example.maps", purpose: "show my position on the map",
            firstParty: ["tiles.maps-example.org", "api.maps-example.org", "search.maps-example.org"],
            trackers: ["settings.crashlytics.com"], trackerRequestsPerTen: 1),
        App(id: "org.example.chat", purpose: "find my contacts on the service",
            firstParty: ["directory.chat-example.net", "media.chat-example.net"],
            trackers: [], trackerRequestsPerTen: 0),
    ]
}
