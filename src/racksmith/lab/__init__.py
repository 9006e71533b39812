"""Local lab: a small podman cluster of systemd containers standing in for the real racks."""
