# Writes OUT, a C++ source holding every file under UI_DIR (the dashboard's
# static files, ui/) as a table {path, content type, bytes} for api/ui_files.h:
# the binary serves the dashboard it was built with, and nothing is read from
# disk at run time. Run by the build whenever a file under ui/ changes.
#   cmake -DUI_DIR=... -DOUT=... -P embed.cmake
file(GLOB_RECURSE files LIST_DIRECTORIES false "${UI_DIR}/*")
list(SORT files)

# The media type a browser needs for each kind of file; an unknown kind is
# served as bytes, which nosniff keeps the browser from guessing at.
function(dw_ui_content_type path out)
  string(TOLOWER "${path}" lower)
  if(lower MATCHES "\\.html$")
    set(type "text/html; charset=utf-8")
  elseif(lower MATCHES "\\.css$")
    set(type "text/css; charset=utf-8")
  elseif(lower MATCHES "\\.m?js$")
    set(type "text/javascript; charset=utf-8")
  elseif(lower MATCHES "\\.json$")
    set(type "application/json")
  elseif(lower MATCHES "\\.svg$")
    set(type "image/svg+xml")
  elseif(lower MATCHES "\\.png$")
    set(type "image/png")
  elseif(lower MATCHES "\\.ico$")
    set(type "image/x-icon")
  elseif(lower MATCHES "\\.txt$")
    set(type "text/plain; charset=utf-8")
  else()
    set(type "application/octet-stream")
  endif()
  set(${out} "${type}" PARENT_SCOPE)
endfunction()

set(arrays "")
set(rows "")
set(index 0)
foreach(file IN LISTS files)
  file(RELATIVE_PATH path "${UI_DIR}" "${file}")
  # A path is looked up as the request names it: only plain characters, so
  # it needs no escaping in the C++ string either.
  if(NOT path MATCHES "^[A-Za-z0-9._/-]+$")
    message(FATAL_ERROR "ui/${path}: a dashboard file's path may hold only A-Z a-z 0-9 . _ - /")
  endif()
  dw_ui_content_type("${path}" type)
  file(READ "${file}" hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  # One byte more than the file (a trailing 0), so an empty file is a valid array.
  string(APPEND arrays "static const unsigned char kFile${index}[] = {${bytes}0};\n")
  string(APPEND rows "      {\"${path}\", \"${type}\", Bytes(kFile${index}, ${size})},\n")
  math(EXPR index "${index} + 1")
endforeach()

set(DW_UI_ARRAYS "${arrays}")
set(DW_UI_ROWS "${rows}")
configure_file("${CMAKE_CURRENT_LIST_DIR}/ui_files.cc.in" "${OUT}" @ONLY)
