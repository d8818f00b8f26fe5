// Replaced by the fake servers.
