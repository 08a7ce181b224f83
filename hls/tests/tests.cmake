# cnnmap's HLS building blocks (hls/include: ap_int / hls::stream compatibility headers,
# hls/templates: the nn2FPGA-style blocks): C++ tests run by ctest. Included from
# tests/CMakeLists.txt. They need only a C++17 compiler and threads; CM_SANITIZE applies.
enable_language(CXX)
find_package(Threads REQUIRED)

set(CM_HLS_DIR ${CMAKE_SOURCE_DIR}/hls)
foreach(t ap_int stream blocks)
  add_executable(hls_test_${t} ${CM_HLS_DIR}/tests/test_${t}.cpp)
  set_target_properties(hls_test_${t} PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  # The compatibility headers come first, as in a generated project's `make csim`.
  target_include_directories(hls_test_${t} PRIVATE ${CM_HLS_DIR}/include ${CM_HLS_DIR}/templates ${CM_HLS_DIR}/tests)
  target_compile_options(hls_test_${t} PRIVATE -O2 -Wall -Wextra -Werror)
  if(CM_SANITIZE)
    target_compile_options(hls_test_${t} PRIVATE -fsanitize=address,undefined -fno-sanitize-recover=all
                           -fno-omit-frame-pointer)
    target_link_options(hls_test_${t} PRIVATE -fsanitize=address,undefined)
  endif()
  target_link_libraries(hls_test_${t} PRIVATE Threads::Threads)
  add_test(NAME hls_test_${t} COMMAND hls_test_${t})
  set_tests_properties(hls_test_${t} PROPERTIES TIMEOUT 60)
endforeach()
