# Install rules and the CMake package: `cmake --install` puts the command,
# the public headers, the libraries and gdedupConfig.cmake under the prefix,
# and find_package(gdedup) then gives gdedup::gdedup (the job layer, the
# engine and its GPU backend)
# (tests/install_consumer checks this end to end).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(gdedup_exported gdedup gdedup_job gdedup_engine)
if(TARGET gdedup_cuda)
  list(APPEND gdedup_exported gdedup_cuda)
else()
  list(APPEND gdedup_exported gdedup_gpu_unavailable)
endif()
if(TARGET gdedup_isal)  # ISA-L found without pkg-config: its paths travel along
  list(APPEND gdedup_exported gdedup_isal)
endif()
set(GDEDUP_ISAL_PKGCONFIG OFF)
if(GDEDUP_ISAL_TARGET STREQUAL "PkgConfig::ISAL")
  set(GDEDUP_ISAL_PKGCONFIG ON)
endif()
set_target_properties(gdedup_engine PROPERTIES EXPORT_NAME engine)
set_target_properties(gdedup_job PROPERTIES EXPORT_NAME job)
if(TARGET gdedup_cuda)
  set_target_properties(gdedup_cuda PROPERTIES EXPORT_NAME cuda)
endif()

install(TARGETS ${gdedup_exported} EXPORT gdedupTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The library's API only: include/gdedup/frontend/ holds what the command
# and the Python module need besides it (OS and file helpers, reports, MPI
# runs), built with them from the sources and no stable API; no header of the
# API includes one of it (tests/layering_check.sh).
install(DIRECTORY include/gdedup DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  PATTERN frontend EXCLUDE)
if(TARGET gdedup_cli)
  install(TARGETS gdedup_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
# The Parquet module, which the command (and a program on the engine) loads
# from the library folder beside its own folder.
if(TARGET gdedup_parquet)
  install(TARGETS gdedup_parquet LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

set(gdedup_config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/gdedup)
install(EXPORT gdedupTargets NAMESPACE gdedup:: DESTINATION ${gdedup_config_dir})
configure_package_config_file(cmake/gdedupConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/gdedupConfig.cmake INSTALL_DESTINATION ${gdedup_config_dir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/gdedupConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/gdedupConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/gdedupConfigVersion.cmake
        DESTINATION ${gdedup_config_dir})
