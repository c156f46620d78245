/* The JavaScript DuktapeWeb runs (Sources/DuktapeWeb/JavaScript: the browser globals, fetch, the page) loader.html and websocket.html. See include/CDuktapeWebScripts.h. */
#include "CDuktapeWebScripts.h"

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
static const unsigned char cduk_web__abort_js[] = {
#embed "../DuktapeWeb/JavaScript/abort.js"
};
static const unsigned char cduk_web__blob_js[] = {
#embed "../DuktapeWeb/JavaScript/blob.js"
};
static const unsigned char cduk_web__bodies_js[] = {
#embed "../DuktapeWeb/JavaScript/bodies.js"
};
static const unsigned char cduk_web__browser_js[] = {
#embed "../DuktapeWeb/JavaScript/browser.js"
};
static const unsigned char cduk_web__dom_exception_js[] = {
#embed "../DuktapeWeb/JavaScript/dom-exception.js"
};
static const unsigned char cduk_web__encoding_js[] = {
#embed "../DuktapeWeb/JavaScript/encoding.js"
};
static const unsigned char cduk_web__events_js[] = {
#embed "../DuktapeWeb/JavaScript/events.js"
};
static const unsigned char cduk_web__fetch_js[] = {
#embed "../DuktapeWeb/JavaScript/fetch.js"
};
static const unsigned char cduk_web__flex_js[] = {
#embed "../DuktapeWeb/JavaScript/flex.js"
};
static const unsigned char cduk_web__headers_js[] = {
#embed "../DuktapeWeb/JavaScript/headers.js"
};
static const unsigned char cduk_web__helpers_js[] = {
#embed "../DuktapeWeb/JavaScript/helpers.js"
};
static const unsigned char cduk_web__page_js[] = {
#embed "../DuktapeWeb/JavaScript/page.js"
};
static const unsigned char cduk_web__request_js[] = {
#embed "../DuktapeWeb/JavaScript/request.js"
};
static const unsigned char cduk_web__response_js[] = {
#embed "../DuktapeWeb/JavaScript/response.js"
};
static const unsigned char cduk_web__streams_js[] = {
#embed "../DuktapeWeb/JavaScript/streams.js"
};
static const unsigned char cduk_web__url_js[] = {
#embed "../DuktapeWeb/JavaScript/url.js"
};
static const unsigned char cduk_web__websocket_js[] = {
#embed "../DuktapeWeb/JavaScript/websocket.js"
};
static const unsigned char cduk_web__wvjb_js[] = {
#embed "../DuktapeWeb/JavaScript/wvjb.js"
};
static const unsigned char cduk_web__window_js[] = {
#embed "../DuktapeWeb/JavaScript/window.js"
};
static const unsigned char cduk_web__loader_html[] = {
#embed "../DuktapeWeb/Resources/loader.html"
};
static const unsigned char cduk_web__websocket_html[] = {
#embed "../DuktapeWeb/Resources/websocket.html"
};
#pragma clang diagnostic pop

static const struct { const char *name; const unsigned char *bytes; size_t length; } cduk_web__files[] = {
    { "abort.js", cduk_web__abort_js, sizeof cduk_web__abort_js },
    { "blob.js", cduk_web__blob_js, sizeof cduk_web__blob_js },
    { "bodies.js", cduk_web__bodies_js, sizeof cduk_web__bodies_js },
    { "browser.js", cduk_web__browser_js, sizeof cduk_web__browser_js },
    { "dom-exception.js", cduk_web__dom_exception_js, sizeof cduk_web__dom_exception_js },
    { "encoding.js", cduk_web__encoding_js, sizeof cduk_web__encoding_js },
    { "events.js", cduk_web__events_js, sizeof cduk_web__events_js },
    { "fetch.js", cduk_web__fetch_js, sizeof cduk_web__fetch_js },
    { "flex.js", cduk_web__flex_js, sizeof cduk_web__flex_js },
    { "headers.js", cduk_web__headers_js, sizeof cduk_web__headers_js },
    { "helpers.js", cduk_web__helpers_js, sizeof cduk_web__helpers_js },
    { "page.js", cduk_web__page_js, sizeof cduk_web__page_js },
    { "request.js", cduk_web__request_js, sizeof cduk_web__request_js },
    { "response.js", cduk_web__response_js, sizeof cduk_web__response_js },
    { "streams.js", cduk_web__streams_js, sizeof cduk_web__streams_js },
    { "url.js", cduk_web__url_js, sizeof cduk_web__url_js },
    { "websocket.js", cduk_web__websocket_js, sizeof cduk_web__websocket_js },
    { "window.js", cduk_web__window_js, sizeof cduk_web__window_js },
    { "wvjb.js", cduk_web__wvjb_js, sizeof cduk_web__wvjb_js },
    { "loader.html", cduk_web__loader_html, sizeof cduk_web__loader_html },
    { "websocket.html", cduk_web__websocket_html, sizeof cduk_web__websocket_html },
};
static const size_t cduk_web__count = sizeof cduk_web__files / sizeof cduk_web__files[0];

const unsigned char *cduk_web_file_at(size_t index, const char **name, size_t *length) {
    if (index >= cduk_web__count) {
        return NULL;
    }
    *name = cduk_web__files[index].name;
    *length = cduk_web__files[index].length;
    return cduk_web__files[index].bytes;
}
