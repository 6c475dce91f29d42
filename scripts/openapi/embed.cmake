# Writes OUT, a C++ source holding the bytes of the OpenAPI document IN
# (docs/openapi.json) as one raw string literal, for api/openapi.h: the binary
# serves the document it was built with. Run by the build when IN changes.
#   cmake -DIN=... -DOUT=... -P embed.cmake
file(READ "${IN}" DW_OPENAPI_JSON)
set(delimiter "dwopenapi")
string(FIND "${DW_OPENAPI_JSON}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw string's closing delimiter )${delimiter}\"")
endif()
configure_file("${CMAKE_CURRENT_LIST_DIR}/openapi.cc.in" "${OUT}" @ONLY)
