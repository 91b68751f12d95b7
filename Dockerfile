# The baghchal server: built in one stage, run from a small image.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin baghchal

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home /var/lib/baghchal --create-home baghchal
COPY --from=build /src/target/release/baghchal /usr/local/bin/baghchal
USER baghchal
WORKDIR /var/lib/baghchal
# The page is built into the binary.
ENV BAGHCHAL_ADDR=0.0.0.0:8080 \
    DATABASE_URL=sqlite:///var/lib/baghchal/baghchal.db?mode=rwc \
    BAGHCHAL_DATA_DIR=/var/lib/baghchal \
    RUST_LOG=info
# The database (SQLite) and the tablebase, built here on first start.
VOLUME /var/lib/baghchal
EXPOSE 8080
STOPSIGNAL SIGTERM
CMD ["baghchal"]
