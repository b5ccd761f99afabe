# boxtrack in a container: a build stage with the Rust toolchain, and a small Debian runtime
# that runs the one binary as an unprivileged user.
#
#   docker build -t boxtrack .
#   docker run -p 8080:8080 -v boxtrack-data:/var/lib/boxtrack boxtrack
#
# The runtime listens on 0.0.0.0:8080 with a SQLite file in /var/lib/boxtrack; set
# BOXTRACK_DATABASE_URL=postgres://... for PostgreSQL (deploy/compose/compose.yaml).
# BINARY_SOURCE=prebuilt takes target/<PROFILE>/boxtrack from the build context instead of
# compiling (CI uses it on machines that cannot pull the Rust image).

ARG RUST_IMAGE=rust:1.95-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim
ARG BINARY_SOURCE=source

# the tag is in RUST_IMAGE
# hadolint ignore=DL3006
FROM ${RUST_IMAGE} AS build
WORKDIR /src
COPY . .
ARG BOXTRACK_COMMIT=unknown
ENV BOXTRACK_COMMIT=${BOXTRACK_COMMIT}
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p boxtrack \
    && install -D target/release/boxtrack /out/boxtrack

FROM scratch AS binary-source
COPY --from=build /out/boxtrack /out/boxtrack

FROM scratch AS binary-prebuilt
ARG PROFILE=release
COPY target/${PROFILE}/boxtrack /out/boxtrack

# hadolint ignore=DL3006
FROM binary-${BINARY_SOURCE} AS binary

# the tag is in RUNTIME_IMAGE
# hadolint ignore=DL3006
FROM ${RUNTIME_IMAGE} AS runtime
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 boxtrack \
    && useradd --system --uid 10001 --gid boxtrack --home-dir /var/lib/boxtrack --shell /usr/sbin/nologin boxtrack \
    && install -d -o boxtrack -g boxtrack -m 0750 /var/lib/boxtrack
COPY --from=binary /out/boxtrack /usr/local/bin/boxtrack
USER boxtrack:boxtrack
WORKDIR /var/lib/boxtrack
ENV BOXTRACK_LISTEN=0.0.0.0:8080 \
    BOXTRACK_DATABASE_URL=sqlite:///var/lib/boxtrack/boxtrack.db \
    BOXTRACK_LOG_FORMAT=json
EXPOSE 8080
VOLUME ["/var/lib/boxtrack"]
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
    CMD ["boxtrack", "health", "--url", "http://127.0.0.1:8080"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["boxtrack"]
CMD ["serve"]
