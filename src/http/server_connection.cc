// A connection's session (http/server_internal.h): reads each request within
// the server's limits (header bytes and fields, body size, timeouts), refuses
// what it must before the body is read (framing a proxy may read otherwise, a
// body on a GET, what `precheck` refuses), hands the request to the handlers
// (quick ones on the I/O thread, the rest on the read or write pool) and writes
// the answer, or a stream (BodySource) until it ends or the client hangs up.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <optional>

#include "core/metrics.h"
#include "core/text.h"
#include "http/server_internal.h"

namespace docwright {
namespace {

// Beast keeps one node per header field, several times the size of a short field
// on the wire: the count is capped as well as the bytes.
constexpr long kMaxHeaderFields = 100;

// Why a request's framing is refused (RFC 9112 sections 6.1 and 6.3), if it is:
// with Transfer-Encoding, its last coding must be chunked (else the body's end
// is unknown: 400), applied once (400), with no other coding, which this server
// does not implement (501), and without Content-Length (400); an HTTP/1.0
// request has no Transfer-Encoding (400). Framing a proxy may read otherwise is
// how requests are smuggled past it, so the connection is closed after each.
struct FramingRefusal {
  int status;
  std::string message;
  std::string code;
};
std::optional<FramingRefusal> FramingError(const http::request<http::string_body>& req) {
  auto [first, last] = req.equal_range(http::field::transfer_encoding);
  if (first == last) return std::nullopt;
  if (req.version() < 11) {
    return FramingRefusal{400, "an HTTP/1.0 request cannot have Transfer-Encoding", "bad_framing"};
  }
  if (req.find(http::field::content_length) != req.end()) {
    return FramingRefusal{400, "a request cannot have both Transfer-Encoding and Content-Length",
                          "bad_framing"};
  }
  std::vector<std::string> codings;
  for (auto it = first; it != last; ++it) {
    std::string_view value = it->value();
    while (!value.empty()) {
      size_t comma = value.find(',');
      std::string_view item = value.substr(0, comma);
      value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
      item = TrimSpace(item);
      if (item.empty()) continue;
      if (codings.size() >= 8) {
        return FramingRefusal{400, "too many transfer codings", "bad_framing"};
      }
      std::string lower(item);
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      codings.push_back(std::move(lower));
    }
  }
  if (codings.empty() || codings.back() != "chunked") {
    return FramingRefusal{400, "the last transfer coding of a request must be chunked",
                          "bad_framing"};
  }
  if (codings.size() == 1) return std::nullopt;  // chunked alone
  if (std::find(codings.begin(), codings.end() - 1, "chunked") != codings.end() - 1) {
    return FramingRefusal{400, "the chunked transfer coding is applied more than once",
                          "bad_framing"};
  }
  return FramingRefusal{501, "transfer codings other than chunked are not implemented",
                        "not_implemented"};
}

}  // namespace

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  // `peer` was admitted by ServerState::AdmitPeer; the session releases it.
  // `address` is the peer's address in text.
  HttpConnection(Socket&& socket, ServerState& state, std::string peer, std::string address)
      : stream_(std::move(socket)),
        state_(state),
        peer_(std::move(peer)),
        address_(std::move(address)),
        buffer_(state.options.header_limit + kReadSlack) {
    state_.connections.fetch_add(1, std::memory_order_relaxed);
  }

  ~HttpConnection() {
    if (source_ && !stream_ended_) source_->Close();
    state_.ReleasePeer(peer_);
    bool last = false;
    {
      MutexLock lock(state_.sessions_mu);
      state_.sessions.erase(this);
      last = state_.sessions.empty();
    }
    state_.connections.fetch_sub(1, std::memory_order_relaxed);
    if (last && state_.stopping.load() && state_.on_last_session_closed) {
      state_.on_last_session_closed();
    }
  }

  void Start() {
    {
      MutexLock lock(state_.sessions_mu);
      state_.sessions.emplace(this, weak_from_this());
    }
    net::dispatch(stream_.get_executor(),
                  beast::bind_front_handler(&HttpConnection::DoRead, shared_from_this()));
  }

  // Called on shutdown, on the session's I/O thread: an idle connection closes now, a
  // busy one after its response.
  void Stop() {
    if (source_) return EndStream();
    if (reading_ && buffer_.size() == 0 && (!parser_ || !parser_->got_some())) {
      beast::error_code ec;
      stream_.socket().cancel(ec);
    }
  }

  Executor executor() { return stream_.get_executor(); }

 private:
  void DoRead() {
    if (state_.stopping.load()) return DoClose();
    parser_.emplace();
    prechecked_.reset();
    head_only_ = false;
    log_ = {};
    parser_->body_limit(state_.options.body_limit);
    parser_->header_limit(static_cast<std::uint32_t>(state_.options.header_limit));
    reading_ = true;
    if (!served_any_ || buffer_.size() > 0) return ReadHeader();
    // An idle keep-alive connection: the header timeout starts with the next
    // request's first byte. Memory a large request left behind goes back now.
    if (buffer_.capacity() > (4 << 10)) buffer_.shrink_to_fit();
    stream_.expires_after(state_.options.read_timeout);
    stream_.async_read_some(buffer_.prepare(1024),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              self->buffer_.commit(n);
                              if (ec) return self->DoClose();
                              self->ReadHeader();
                            });
  }

  void ReadHeader() {
    stream_.expires_after(state_.options.header_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        beast::bind_front_handler(&HttpConnection::OnHeader, shared_from_this()));
  }

  // The header is in. A client that sent "Expect: 100-continue" waits for our
  // go-ahead before it sends the body; without one it would stall for a second.
  void OnHeader(beast::error_code ec, std::size_t n) {
    served_any_ = true;
    log_.started = std::chrono::steady_clock::now();
    if (!ec) log_.method = std::string(parser_->get().method_string());
    if (!ec && std::distance(parser_->get().begin(), parser_->get().end()) > kMaxHeaderFields) {
      reading_ = false;
      return WriteError(
          431, "the request has more than " + std::to_string(kMaxHeaderFields) + " header fields",
          "headers_too_large");
    }
    if (!ec) {
      if (auto refused = FramingError(parser_->get())) {
        reading_ = false;
        version_ = parser_->get().version();
        return WriteError(refused->status, refused->message, refused->code);
      }
    }
    if (ec || parser_->is_done()) return OnRead(ec, n);
    version_ = parser_->get().version();
    // Nothing answered without a key takes a body: refuse it unread.
    auto method = parser_->get().method();
    if (method == http::verb::get || method == http::verb::head) {
      reading_ = false;
      return WriteError(400, "a GET or HEAD request must not have a body", "body_not_allowed");
    }
    // A body is coming: refuse what will be refused anyway (unknown route, no
    // valid key) before accepting up to a mebibyte from an unknown client.
    if (state_.handlers.precheck) {
      prechecked_ = RequestFromHeader();
      if (auto early = state_.handlers.precheck(*prechecked_)) {
        NoteForLog(*prechecked_);
        prechecked_.reset();
        reading_ = false;
        version_ = parser_->get().version();
        keep_alive_ = false;
        drain_after_write_ = true;
        return Write(std::move(*early));
      }
    }
    auto expect = parser_->get().find(http::field::expect);
    if (expect != parser_->get().end() && beast::iequals(expect->value(), "100-continue")) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      net::async_write(stream_, net::buffer(kContinue.data(), kContinue.size()),
                       [self = shared_from_this()](beast::error_code ec, std::size_t) {
                         if (ec) return self->DoClose();
                         self->ReadBody();
                       });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    stream_.expires_after(state_.options.read_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&HttpConnection::OnRead, shared_from_this()));
  }

  void OnRead(beast::error_code ec, std::size_t) {
    reading_ = false;
    if (ec == http::error::body_limit) {
      return WriteError(413,
                        "the request body is larger than the limit of " +
                            std::to_string(state_.options.body_limit) + " bytes",
                        "payload_too_large");
    }
    if (ec == http::error::header_limit) {
      return WriteError(431, "the request headers are too large", "headers_too_large");
    }
    if (ec == http::error::buffer_overflow) {
      return WriteError(400,
                        "a chunk header or trailer is larger than " +
                            std::to_string(state_.options.header_limit + kReadSlack) + " bytes",
                        "bad_request");
    }
    if (ec) {
      // A clean close, a timeout, a reset, or garbage: nothing to answer unless
      // the client sent something that was not HTTP.
      bool protocol_error =
          ec.category() == http::make_error_code(http::error::end_of_stream).category() &&
          ec != http::error::end_of_stream && parser_ && parser_->got_some();
      if (protocol_error) return WriteError(400, "malformed HTTP request", "bad_request");
      return DoClose();
    }

    auto& req = parser_->get();
    version_ = req.version();
    keep_alive_ = req.keep_alive();
    head_only_ = req.method() == http::verb::head;
    // The request `precheck` saw, with what it found out, if it saw one.
    HttpRequest request = prechecked_ ? std::move(*prechecked_) : RequestFromHeader();
    prechecked_.reset();
    request.body = std::move(req.body());
    log_.client = request.client;

    bool quick = (req.method() == http::verb::get || head_only_) &&
                 (!state_.handlers.is_quick || state_.handlers.is_quick(request));
    if (quick) {
      HttpResponse response = Invoke(request);
      NoteForLog(request);
      Write(std::move(response));
      return;
    }
    // Writes and larger reads may wait on the disk: keep them off the I/O threads.
    // The work guard keeps this connection's context running until the answer is
    // back, also during shutdown.
    const bool read = req.method() == http::verb::get || head_only_;
    net::post(read ? state_.reads : state_.blocking,
              [self = shared_from_this(), request = std::move(request),
               guard = net::make_work_guard(stream_.get_executor())]() mutable {
                HttpResponse response = self->Invoke(request);
                net::post(self->stream_.get_executor(),
                          [self, response = std::move(response), route = std::move(request.route),
                           principal = std::move(request.principal)]() mutable {
                            self->log_.route = std::move(route);
                            self->log_.principal = std::move(principal);
                            self->Write(std::move(response));
                          });
                guard.reset();
              });
  }

  HttpRequest RequestFromHeader() const {
    const auto& req = parser_->get();
    HttpRequest r;
    r.method = std::string(req.method_string());
    r.target = std::string(req.target());
    if (auto it = req.find(http::field::authorization); it != req.end()) {
      r.authorization = std::string(it->value());
    }
    if (auto it = req.find(http::field::content_type); it != req.end()) {
      r.content_type = std::string(it->value());
    }
    r.if_none_match = AllLines(http::field::if_none_match);
    r.idempotency_key = AllLines("Idempotency-Key");
    r.last_event_id = AllLines("Last-Event-ID");
    r.cookie = AllLines(http::field::cookie, "; ");
    r.csrf_token = AllLines("X-Docwright-CSRF");
    r.origin = AllLines(http::field::origin);
    r.host = AllLines(http::field::host);
    for (std::string_view name : kForgeHookHeaders) {
      std::string value = AllLines(name);
      if (!value.empty()) r.hook_headers.emplace_back(std::string(name), std::move(value));
    }
    r.client = address_;
    if (!state_.options.trusted_proxies.empty()) {
      const bool rfc = state_.options.forwarded_header == ForwardedHeader::kForwarded;
      r.client = ClientAddress(address_,
                               rfc ? AllLines(http::field::forwarded) : AllLines("X-Forwarded-For"),
                               state_.options.forwarded_header, state_.options.trusted_proxies);
    }
    return r;
  }

  // Every line of a header field, comma-joined as RFC 9110 allows (Cookie:
  // "; "-joined, as RFC 6265 has it).
  template <typename Field>
  std::string AllLines(Field field, std::string_view separator = ", ") const {
    std::string joined;
    auto [begin, end] = parser_->get().equal_range(field);
    for (auto it = begin; it != end; ++it) {
      if (!joined.empty()) joined += separator;
      joined.append(it->value().data(), it->value().size());
    }
    return joined;
  }

  void NoteForLog(const HttpRequest& request) {
    log_.client = request.client;
    log_.route = request.route;
    log_.principal = request.principal;
  }

  // The request under way, for the access log.
  struct LogFields {
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    std::string method, route, principal, client;
  };

  HttpResponse Invoke(HttpRequest& request) {
    try {
      return state_.handlers.handle(request);
    } catch (const std::exception& e) {
      spdlog::error("request handler failed: {}", e.what());
    } catch (...) {
      spdlog::error("request handler failed");
    }
    return ErrorResponse(500, "internal error", "internal");
  }

  void WriteError(int status, std::string_view message, std::string_view code) {
    // The rest of the request is unread: the connection cannot be reused.
    keep_alive_ = false;
    drain_after_write_ = true;
    Write(ErrorResponse(status, message, code));
  }

  void Write(HttpResponse response) {
    if (response.stream && state_.stopping.load()) {
      // Shutting down: a stream that starts now would hold the shutdown for
      // its grace period. The client resumes elsewhere.
      response.stream->Close();
      keep_alive_ = false;
      response = ErrorResponse(503, "the server is shutting down", "unavailable");
      response.headers.emplace_back("Retry-After", "1");
    }
    auto took = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - log_.started);
    // The route pattern the application named, never the path as sent.
    metrics::RecordHttpRequest(log_.route, log_.method, response.status,
                               std::chrono::duration<double>(took).count());
    if (state_.handlers.access_log) {
      state_.handlers.access_log(
          AccessRecord{.method = log_.method,
                       .route = log_.route,
                       .principal = log_.principal,
                       .client = log_.client.empty() ? address_ : log_.client,
                       .status = response.status,
                       .body_bytes = response.body.size(),
                       .duration = took});
    }
    if (response.stream) return WriteStream(std::move(response));
    res_.emplace(static_cast<http::status>(response.status), version_ ? version_ : 11);
    auto& res = *res_;
    res.set(http::field::server, "docwright");
    res.set(http::field::content_type, response.content_type);
    for (auto& [name, value] : response.headers) res.set(name, value);
    res.keep_alive(keep_alive_ && !state_.stopping.load());
    if (head_only_) {
      res.content_length(response.body.size());  // what a GET would carry; no body
    } else {
      res.body() = std::move(response.body);
      res.prepare_payload();
    }
    stream_.expires_after(state_.options.write_timeout);
    http::async_write(stream_, res,
                      beast::bind_front_handler(&HttpConnection::OnWrite, shared_from_this()));
  }

  void OnWrite(beast::error_code ec, std::size_t) {
    bool keep = res_ && res_->keep_alive();
    res_.reset();
    if (ec) return DoClose();
    if (drain_after_write_) return DrainAndClose();
    if (!keep) return DoClose();
    DoRead();
  }

  // --- A streamed response (BodySource) ---

  void WriteStream(HttpResponse response) {
    source_ = std::move(response.stream);
    // The connection serves nothing else: what its request took goes back
    // now, as a stream may stay open for hours.
    parser_.reset();
    buffer_.clear();
    buffer_.shrink_to_fit();
    auto& header = stream_header_.emplace(static_cast<http::status>(response.status),
                                          version_ ? version_ : 11);
    header.set(http::field::server, "docwright");
    header.set(http::field::content_type, response.content_type);
    for (auto& [name, value] : response.headers) header.set(name, value);
    header.keep_alive(false);
    chunked_ = version_ >= 11 && !head_only_;
    if (chunked_) header.chunked(true);
    if (head_only_) header.content_length(0);
    stream_serializer_.emplace(header);
    stream_.expires_after(state_.options.write_timeout);
    http::async_write_header(stream_, *stream_serializer_,
                             [self = shared_from_this()](beast::error_code ec, std::size_t) {
                               if (ec || self->head_only_) return self->EndStream();
                               self->WatchForHangUp();
                               self->PullPiece();
                             });
  }

  // A client that hangs up is noticed at once, not at the next write: the
  // socket is read (directly, outside the stream's timer) while the body is
  // written; anything it sends ends the response too.
  void WatchForHangUp() {
    hangup_buf_.resize(512);
    stream_.socket().async_read_some(
        net::buffer(hangup_buf_),
        [self = shared_from_this()](beast::error_code, std::size_t) { self->EndStream(); });
  }

  void PullPiece() {
    if (stream_ended_) return;
    // The source may answer on any thread: the piece is written on this
    // connection's own.
    std::weak_ptr<HttpConnection> weak = weak_from_this();
    source_->Next([weak](std::optional<std::string> piece) {
      auto self = weak.lock();
      if (!self) return;
      net::post(self->stream_.get_executor(),
                [self, piece = std::move(piece)]() mutable { self->WritePiece(std::move(piece)); });
    });
  }

  void WritePiece(std::optional<std::string> piece) {
    if (stream_ended_) return;
    auto after = [self = shared_from_this(), last = !piece](beast::error_code ec, std::size_t) {
      std::string().swap(self->piece_);  // an idle stream holds no piece
      if (ec || last) return self->EndStream();
      self->PullPiece();
    };
    stream_.expires_after(state_.options.write_timeout);
    if (!piece) {
      if (!chunked_) return EndStream();
      return net::async_write(stream_, http::make_chunk_last(), std::move(after));
    }
    if (piece->empty()) return PullPiece();  // an empty chunk would end the body
    piece_ = std::move(*piece);
    if (chunked_) {
      net::async_write(stream_, http::make_chunk(net::buffer(piece_)), std::move(after));
    } else {
      net::async_write(stream_, net::buffer(piece_), std::move(after));
    }
  }

  void EndStream() {
    if (stream_ended_) return;
    stream_ended_ = true;
    if (source_) source_->Close();
    source_.reset();
    DoClose();
  }

  // After an early error answer the client may still be sending its body; closing
  // at once would reset the connection and could destroy the answer before the
  // client reads it. Half-close, then discard what arrives, bounded in bytes and
  // time.
  void DrainAndClose() {
    // What the refused request took is given back while the client drains.
    parser_.reset();
    buffer_.clear();
    buffer_.shrink_to_fit();
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream_.expires_after(std::chrono::seconds(5));
    drain_budget_ = 16 << 20;  // at most this many bytes, for at most 5 s
    DrainSome();
  }

  void DrainSome() {
    drain_buf_.resize(16 << 10);
    stream_.async_read_some(net::buffer(drain_buf_),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              if (ec || n >= self->drain_budget_) return self->DoClose();
                              self->drain_budget_ -= n;
                              self->DrainSome();
                            });
  }

  void DoClose() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

  Stream stream_;
  ServerState& state_;
  const std::string peer_;     // the key its connections are counted by ("": not counted)
  const std::string address_;  // the peer's address
  LogFields log_;
  // Bounded: the header limit plus room for a chunk header; a body goes from it
  // into the parser's string, which the body limit bounds.
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::string_body>> res_;
  std::optional<HttpRequest> prechecked_;  // a request whose body is being read
  unsigned version_ = 11;
  bool keep_alive_ = true;
  bool reading_ = false;
  bool drain_after_write_ = false;
  bool head_only_ = false;
  bool served_any_ = false;  // a request's header has arrived on this connection
  size_t drain_budget_ = 0;
  std::string drain_buf_;
  // A streamed response: its source, header and serializer, the piece being
  // written, and a buffer to notice a hang-up with.
  std::shared_ptr<BodySource> source_;
  std::optional<http::response<http::empty_body>> stream_header_;
  std::optional<http::response_serializer<http::empty_body>> stream_serializer_;
  std::string piece_;
  std::string hangup_buf_;
  bool chunked_ = false;
  bool stream_ended_ = false;
};

void StartConnection(Socket&& socket, ServerState& state, std::string peer, std::string address) {
  std::make_shared<HttpConnection>(std::move(socket), state, std::move(peer), std::move(address))
      ->Start();
}

void StopConnection(const std::shared_ptr<HttpConnection>& connection) {
  net::post(connection->executor(), [s = connection] { s->Stop(); });
}

}  // namespace docwright
