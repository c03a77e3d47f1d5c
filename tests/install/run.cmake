# Installs the built ember into a fresh prefix, then configures, builds and runs a consumer
# project that finds it with find_package(ember) and includes <torch/torch.h>.
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
# A cross build (make test-arm64) configures the consumer with the same toolchain file; its
# programs then run through binfmt_misc (scripts/arm64-binfmt.sh).
# Its arm64 libraries that are not installed system-wide (Gloo's: build-arm64-deps/, see
# scripts/install-deps.sh; TARGET_LIB_DIR, a colon-separated list) are found at link time by
# -rpath-link and at run time by the library path.
set(toolchain "")
if(TOOLCHAIN)
  set(toolchain -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN})
  if(TARGET_LIB_DIR)
    list(APPEND toolchain -DCMAKE_EXE_LINKER_FLAGS=-Wl,-rpath-link,${TARGET_LIB_DIR})
    set(ENV{LD_LIBRARY_PATH} ${TARGET_LIB_DIR})
  endif()
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC}/tests/install/consumer -B ${WORK}/build -G Ninja
                        -DCMAKE_PREFIX_PATH=${WORK}/prefix ${toolchain} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${WORK}/build/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(rc OR NOT out MATCHES "consumer ok")
  message(FATAL_ERROR "the consumer failed: ${rc}")
endif()

# The installed `ember train` finds its data set beside it (<prefix>/share/ember).
execute_process(COMMAND ${WORK}/prefix/bin/ember train --epochs 1 --no-progress --checkpoint ${WORK}/digits.safetensors
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(rc OR NOT out MATCHES "test accuracy: 0\\.[0-9][0-9][0-9]\n$" OR NOT out MATCHES "data: ${WORK}/prefix/share/ember/")
  message(FATAL_ERROR "the installed ember train failed (${rc}): ${err}")
endif()
