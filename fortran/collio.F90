!
! collio.F90 -- Fortran bindings of libcollio: module collio.
!
! The same calls as include/collio.h (read it for what each one does; the
! comments here say how the Fortran form differs):
!
!   * Every function that returns an error code in C returns it here as an
!     integer(c_int) function result: COLLIO_OK (0) or a COLLIO_ERR_* code,
!     the same on every rank for collective calls. collio_strerror(rc) and
!     collio_last_error() return Fortran strings.
!   * Communicators: both type(MPI_Comm) (use mpi_f08) and INTEGER handles
!     (use mpi) are accepted -- every procedure taking a communicator is a
!     generic interface with one specific for each. The same for the
!     MPI_Datatype of collio_layout_set_memory_datatype. The C side
!     (collio_fshim.c) converts with MPI_Comm_f2c / MPI_Type_f2c.
!   * Opaque objects are derived types holding the C pointer:
!     type(collio_layout), type(collio_plan), type(collio_file). The
!     *_free / *_close / *_abort calls null them, as in C.
!   * Sizes, counts and global indices are integer(c_int64_t); element
!     sizes (esize) default integers (e.g. storage_size(x) / 8). Global
!     indices are 0-based, as in the file and in C.
!   * Buffers of collio_write / collio_read are any contiguous array (or
!     scalar) of any type and rank: its byte size comes from the array
!     itself, so no buf_bytes argument (a non-contiguous section is copied
!     in and out by the compiler). collio_write_ptr / collio_read_ptr take
!     a type(c_ptr) and a byte count instead.
!   * Plan options are hints: type(collio_hints) (collio_hints_create,
!     _set, _set_int, _parse, _set_info, _get, _count, _key, _free), keys
!     "SECTION.NAME" as in C; collio_hints_set is generic over text,
!     integers of either kind and logicals, collio_hints_set_info over
!     type(MPI_Info) and INTEGER handles. The catalogue
!     (collio_option_describe, collio_stat_describe) returns derived types
!     of Fortran strings. Statistics: type(collio_stats), bind(C), mirrors
!     collio_stats field by field; a strategy's own by key with
!     collio_plan_stat. File options are type(collio_file_options) with
!     the MPI_Info as an INTEGER handle (mpi_f08: info%MPI_VAL).
!   * Optional arguments: the hints of collio_plan_create, the options of
!     collio_file_open, and the dargs of collio_layout_darray, come last and
!     may be left out (the defaults, as NULL in C).
!   * Indices into lists (collio_strategy_name, collio_hints_key,
!     collio_option_describe, collio_stat_describe) are 0-based, as in C.
!   * Enumerations are integer(c_int) parameters with the C names.
!
! Example (STEM-II SL1 from a Fortran-order buffer):
! examples/fortran/stem2_sl1.F90; docs/fortran.md.
!
module collio
  use, intrinsic :: iso_c_binding
  use mpi_f08, only: MPI_Comm, MPI_Datatype, MPI_Info
  implicit none
  private

  ! ------------------------------------------------------------ constants

  integer(c_int), parameter, public :: COLLIO_VERSION_MAJOR = 0
  integer(c_int), parameter, public :: COLLIO_VERSION_MINOR = 3
  integer(c_int), parameter, public :: COLLIO_VERSION_PATCH = 0

  ! error codes (enum collio_error)
  integer(c_int), parameter, public :: COLLIO_OK = 0
  integer(c_int), parameter, public :: COLLIO_ERR_ARG = 1
  integer(c_int), parameter, public :: COLLIO_ERR_NOMEM = 2
  integer(c_int), parameter, public :: COLLIO_ERR_RANGE = 3
  integer(c_int), parameter, public :: COLLIO_ERR_OVERLAP = 4
  integer(c_int), parameter, public :: COLLIO_ERR_COVERAGE = 5
  integer(c_int), parameter, public :: COLLIO_ERR_OVERFLOW = 6
  integer(c_int), parameter, public :: COLLIO_ERR_MISMATCH = 7
  integer(c_int), parameter, public :: COLLIO_ERR_STRATEGY = 8
  integer(c_int), parameter, public :: COLLIO_ERR_BUFSIZE = 9
  integer(c_int), parameter, public :: COLLIO_ERR_OPEN = 10
  integer(c_int), parameter, public :: COLLIO_ERR_IO = 11
  integer(c_int), parameter, public :: COLLIO_ERR_EOF = 12
  integer(c_int), parameter, public :: COLLIO_ERR_MPI = 13
  integer(c_int), parameter, public :: COLLIO_ERR_UNSUPPORTED = 14
  integer(c_int), parameter, public :: COLLIO_ERR_STATE = 15
  integer(c_int), parameter, public :: COLLIO_ERR__COUNT = 16

  ! darray distributions (enum collio_distrib), dargs, orders
  integer(c_int), parameter, public :: COLLIO_DIST_NONE = 0
  integer(c_int), parameter, public :: COLLIO_DIST_BLOCK = 1
  integer(c_int), parameter, public :: COLLIO_DIST_CYCLIC = 2
  integer(c_int64_t), parameter, public :: COLLIO_DARG_DEFAULT = 0
  integer(c_int), parameter, public :: COLLIO_MAX_DIMS = 8
  integer(c_int), parameter, public :: COLLIO_ORDER_C = 0
  integer(c_int), parameter, public :: COLLIO_ORDER_FORTRAN = 1
  ! collio_h5_type (collio_describe_h5)
  integer(c_int), parameter, public :: COLLIO_H5_INT8 = 0, COLLIO_H5_UINT8 = 1, &
    COLLIO_H5_INT16 = 2, COLLIO_H5_UINT16 = 3, COLLIO_H5_INT32 = 4, &
    COLLIO_H5_UINT32 = 5, COLLIO_H5_INT64 = 6, COLLIO_H5_UINT64 = 7, &
    COLLIO_H5_FLOAT32 = 8, COLLIO_H5_FLOAT64 = 9

  ! file backends (enum collio_backend) and modes (enum collio_file_mode)
  integer(c_int), parameter, public :: COLLIO_BACKEND_POSIX = 0
  integer(c_int), parameter, public :: COLLIO_BACKEND_MPIIO = 1
  integer(c_int), parameter, public :: COLLIO_FILE_CREATE = 0
  integer(c_int), parameter, public :: COLLIO_FILE_INPLACE = 1
  integer(c_int), parameter, public :: COLLIO_FILE_READ = 2

  ! ------------------------------------------------------ opaque objects

  !> A layout (collio_layout *): what this rank holds of the global file.
  type, public :: collio_layout
    type(c_ptr) :: ptr = c_null_ptr
  end type collio_layout

  !> A plan (collio_plan *): a reusable schedule for one layout and strategy.
  type, public :: collio_plan
    type(c_ptr) :: ptr = c_null_ptr
  end type collio_plan

  !> A file (collio_file *) open on every rank of a communicator.
  type, public :: collio_file
    type(c_ptr) :: ptr = c_null_ptr
  end type collio_file

  !> A request (collio_request *): a write or read started by
  !> collio_iwrite_at / collio_iread_at, completed by collio_wait,
  !> collio_test or collio_waitall (docs/requests.md).
  type, public :: collio_request
    type(c_ptr) :: ptr = c_null_ptr
  end type collio_request

  !> A set of hints (collio_hints *, local): plan options as "SECTION.NAME"
  !> = value pairs (collio_hints_*), for collio_plan_create.
  type, public :: collio_hints
    type(c_ptr) :: ptr = c_null_ptr
  end type collio_hints

  ! -------------------------------------------------------------- options

  !> collio_file_options, with the MPI_Info as a Fortran INTEGER handle
  !> (use mpi: the handle; use mpi_f08: info%MPI_VAL).
  type, bind(C), public :: collio_file_options
    integer(c_int) :: backend        ! COLLIO_BACKEND_*, default POSIX
    integer(c_int64_t) :: base_offset ! byte offset of element 0
    integer(c_int) :: sync           ! 1: fsync before close commits
    integer(c_int) :: info           ! MPI-IO hints, default MPI_INFO_NULL
  end type collio_file_options

  !> One option of the catalogue (collio_option_describe), as Fortran
  !> strings: key "SECTION.NAME", type ("int", "size", "bool", "name",
  !> "strategy", "uint64", "path"), deflt (the default, as text; empty for a
  !> path without one), range (what it
  !> takes, e.g. "0..32", "auto|hypercube|..."), doc (one line).
  type, public :: collio_option_info
    character(len=:), allocatable :: key, type, deflt, range, doc
  end type collio_option_info

  !> One statistic of the catalogue (collio_stat_describe): key ("total_s"
  !> or "SECTION.NAME"), per_call (.true.: describes the last write /
  !> read; .false.: the plan), doc, count (its values: 1, or up to count,
  !> one per phase, ...) and, for count > 1, length: the key of the
  !> statistic that says how many are in use ("" otherwise).
  type, public :: collio_stat_info
    character(len=:), allocatable :: key, doc, length
    logical :: per_call = .false.
    integer :: count = 1
  end type collio_stat_info

  ! collio_option_info and collio_stat_info as C has them (private)
  type, bind(C) :: c_option_info
    type(c_ptr) :: key, type, deflt, range, doc
  end type c_option_info

  type, bind(C) :: c_stat_info
    type(c_ptr) :: key
    integer(c_int) :: per_call
    type(c_ptr) :: doc
    integer(c_int) :: count
    type(c_ptr) :: length
  end type c_stat_info

  ! ---------------------------------------------------------------- stats

  !> collio_stats: the statistics every strategy keeps. A strategy's own,
  !> and the replica policy's, are read by key: collio_plan_stat,
  !> collio_plan_stat_values.
  type, bind(C), public :: collio_stats
    real(c_double) :: inspect_s
    real(c_double) :: exchange_s
    real(c_double) :: copy_s
    real(c_double) :: file_s
    real(c_double) :: total_s
    integer(c_int64_t) :: bytes_sent
    integer(c_int64_t) :: messages
    integer(c_int64_t) :: file_requests
    integer(c_int64_t) :: file_bytes
    integer(c_int64_t) :: plan_bytes
    integer(c_int64_t) :: work_bytes
    integer(c_int) :: nnodes
    integer(c_int64_t) :: messages_offnode
    integer(c_int64_t) :: bytes_offnode
  end type collio_stats

  ! ------------------------------------------------- public procedures

  public :: collio_strerror, collio_last_error
  public :: collio_layout_block_cyclic, collio_layout_darray
  public :: collio_layout_index_list, collio_layout_index_list_replicated
  public :: collio_layout_extents
  public :: collio_layout_set_memory_global, collio_layout_set_memory_datatype
  public :: collio_layout_local_count, collio_layout_global_count
  public :: collio_layout_esize, collio_layout_global_index
  public :: collio_layout_buffer_bytes, collio_layout_free
  public :: collio_file_options_init, collio_file_open, collio_file_close
  public :: collio_file_abort, collio_file_path
  public :: collio_strategy_count, collio_strategy_name
  public :: collio_strategy_summary, collio_strategy_is_canonical
  public :: collio_option_value_name, collio_option_value
  public :: collio_hints_create, collio_hints_free, collio_hints_set
  public :: collio_hints_set_int, collio_hints_parse, collio_hints_set_info
  public :: collio_hints_get, collio_hints_count, collio_hints_key
  public :: collio_option_count, collio_option_describe
  public :: collio_stat_count, collio_stat_describe
  public :: collio_plan_create, collio_plan_hints, collio_write, collio_read
  public :: collio_write_ptr, collio_read_ptr, collio_write_at, collio_read_at
  public :: collio_plan_predict, collio_plan_prepare
  public :: collio_iwrite_at, collio_iread_at, collio_wait, collio_test, collio_waitall
  public :: collio_plan_stats, collio_plan_stat, collio_plan_stat_values
  public :: collio_plan_strategy, collio_plan_free
  public :: collio_fortran_check_types
  public :: collio_have_h5, collio_describe_h5

  !> collio_layout_block_cyclic(comm, nx, bx, esize, layout): 1-D
  !> block-cyclic layout of nx elements in blocks of bx (collective).
  interface collio_layout_block_cyclic
    module procedure layout_block_cyclic_f08, layout_block_cyclic_int
  end interface collio_layout_block_cyclic

  !> collio_layout_darray(comm, gsizes, distribs, psizes, order, esize,
  !> layout [, dargs]): N-d array as MPI_Type_create_darray describes it
  !> (collective). ndims = size(gsizes); distribs, psizes (and dargs, default
  !> all COLLIO_DARG_DEFAULT) must have as many entries, else COLLIO_ERR_ARG
  !> on every rank. Dimension d of C is entry d+1 here; psizes is the process
  !> grid, row-major in rank as in C.
  interface collio_layout_darray
    module procedure layout_darray_f08, layout_darray_int
  end interface collio_layout_darray

  !> collio_layout_index_list(comm, nglobal, idx, esize, layout): this rank
  !> holds the size(idx) elements of 0-based global indices idx, in that
  !> buffer order (collective).
  interface collio_layout_index_list
    module procedure layout_index_list_f08, layout_index_list_int
  end interface collio_layout_index_list

  !> collio_layout_index_list_replicated(comm, nglobal, idx, owned, esize,
  !> layout): index list with replicas; owned(i) says whether this rank owns
  !> idx(i) (collective). size(owned) /= size(idx): COLLIO_ERR_ARG on every
  !> rank.
  !> collio_layout_extents(comm, off, len, esize, layout): this rank holds
  !> the runs [off(k), off(k) + len(k)) of elements (0-based, as in C);
  !> what no rank holds is a hole, left as the file has it (collective).
  interface collio_layout_extents
    module procedure layout_extents_f08, layout_extents_int
  end interface collio_layout_extents

  interface collio_layout_index_list_replicated
    module procedure layout_index_list_replicated_f08, layout_index_list_replicated_int
  end interface collio_layout_index_list_replicated

  !> collio_layout_set_memory_datatype(layout, type, count): the buffer is
  !> count items of the MPI datatype (type(MPI_Datatype) or INTEGER) (local).
  interface collio_layout_set_memory_datatype
    module procedure layout_set_memory_datatype_f08, layout_set_memory_datatype_int
  end interface collio_layout_set_memory_datatype

  !> collio_file_open(comm, path, mode, file [, opts]): opens path in mode
  !> COLLIO_FILE_* with options opts (default: collio_file_options_init's)
  !> (collective). Trailing blanks of path are ignored.
  interface collio_file_open
    module procedure file_open_f08, file_open_int
  end interface collio_file_open

  !> collio_describe_h5(comm, h5_path, raw_path, type, dims, fortran_order
  !> [, base_offset] [, dataset]): an HDF5 file h5_path whose dataset
  !> (default "data") is the raw file raw_path (external storage), of type
  !> COLLIO_H5_* and shape dims; fortran_order = .true. for dims in Fortran
  !> order (the dataset's C-order shape is then their reverse). Collective;
  !> COLLIO_ERR_UNSUPPORTED where collio was built without HDF5
  !> (docs/hdf5.md).
  interface collio_describe_h5
    module procedure describe_h5_f08, describe_h5_int
  end interface collio_describe_h5

  !> collio_plan_create(comm, layout, [strategy,] plan [, hints]): the plan
  !> of a layout for a registered strategy with a set of hints (absent:
  !> none; the defaults, then COLLIO_HINTS) (collective). strategy absent
  !> (then plan= by keyword) or blank: the default, "auto", as C's NULL.
  interface collio_plan_create
    module procedure plan_create_f08, plan_create_int
  end interface collio_plan_create

  !> collio_hints_set(hints, key, value): sets KEY ("SECTION.NAME") to
  !> value -- text as in C (collio_hints_set), or an integer of either kind
  !> or a logical (collio_hints_set_int; a logical is 1 or 0) (local).
  interface collio_hints_set
    module procedure hints_set_text, hints_set_c_int, hints_set_c_int64, hints_set_logical
  end interface collio_hints_set

  !> collio_hints_set_int(hints, key, value): sets an integer, boolean or
  !> named KEY from a number (a name: its value, collio_option_value)
  !> (local).
  interface collio_hints_set_int
    module procedure hints_set_c_int, hints_set_c_int64
  end interface collio_hints_set_int

  !> collio_hints_set_info(hints, info): sets every key of the MPI_Info
  !> (type(MPI_Info) or INTEGER) that lies in one of collio's sections;
  !> MPI-IO's own keys are left alone (local).
  interface collio_hints_set_info
    module procedure hints_set_info_f08, hints_set_info_int
  end interface collio_hints_set_info

  ! ----------------------------------------------- the C functions (private)

  interface
    function c_strlen(s) bind(C, name="strlen") result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function c_strlen

    function c_collio_strerror(code) bind(C, name="collio_strerror") result(s)
      import :: c_int, c_ptr
      integer(c_int), value :: code
      type(c_ptr) :: s
    end function c_collio_strerror

    function c_collio_last_error() bind(C, name="collio_last_error") result(s)
      import :: c_ptr
      type(c_ptr) :: s
    end function c_collio_last_error

    function c_collio_f_sizeof(which) bind(C, name="collio_f_sizeof") result(n)
      import :: c_int
      integer(c_int), value :: which
      integer(c_int) :: n
    end function c_collio_f_sizeof

    function c_layout_block_cyclic(comm, nx, bx, esize, out) &
        bind(C, name="collio_f_layout_block_cyclic") result(rc)
      import :: c_int, c_int64_t, c_size_t, c_ptr
      integer(c_int), value :: comm
      integer(c_int64_t), value :: nx, bx
      integer(c_size_t), value :: esize
      type(c_ptr), intent(out) :: out
      integer(c_int) :: rc
    end function c_layout_block_cyclic

    function c_layout_darray(comm, ndims, gsizes, distribs, dargs, psizes, order, esize, &
        out) bind(C, name="collio_f_layout_darray") result(rc)
      import :: c_int, c_int64_t, c_size_t, c_ptr
      integer(c_int), value :: comm, ndims
      integer(c_int64_t), intent(in) :: gsizes(*)
      integer(c_int), intent(in) :: distribs(*)
      integer(c_int64_t), intent(in) :: dargs(*)
      integer(c_int), intent(in) :: psizes(*)
      integer(c_int), value :: order
      integer(c_size_t), value :: esize
      type(c_ptr), intent(out) :: out
      integer(c_int) :: rc
    end function c_layout_darray

    function c_layout_index_list(comm, nglobal, nlocal, idx, esize, out) &
        bind(C, name="collio_f_layout_index_list") result(rc)
      import :: c_int, c_int64_t, c_size_t, c_ptr
      integer(c_int), value :: comm
      integer(c_int64_t), value :: nglobal, nlocal
      integer(c_int64_t), intent(in) :: idx(*)
      integer(c_size_t), value :: esize
      type(c_ptr), intent(out) :: out
      integer(c_int) :: rc
    end function c_layout_index_list

    function c_layout_index_list_replicated(comm, nglobal, nlocal, idx, owned, esize, out) &
        bind(C, name="collio_f_layout_index_list_replicated") result(rc)
      import :: c_int, c_int64_t, c_size_t, c_ptr, c_signed_char
      integer(c_int), value :: comm
      integer(c_int64_t), value :: nglobal, nlocal
      integer(c_int64_t), intent(in) :: idx(*)
      integer(c_signed_char), intent(in) :: owned(*)
      integer(c_size_t), value :: esize
      type(c_ptr), intent(out) :: out
      integer(c_int) :: rc
    end function c_layout_index_list_replicated

    function c_layout_set_memory_global(layout) &
        bind(C, name="collio_layout_set_memory_global") result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: layout
      integer(c_int) :: rc
    end function c_layout_set_memory_global

    function c_layout_set_memory_datatype(layout, dtype, count) &
        bind(C, name="collio_f_layout_set_memory_datatype") result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: layout
      integer(c_int), value :: dtype, count
      integer(c_int) :: rc
    end function c_layout_set_memory_datatype

    function c_layout_local_count(layout) bind(C, name="collio_layout_local_count") result(n)
      import :: c_ptr, c_int64_t
      type(c_ptr), value :: layout
      integer(c_int64_t) :: n
    end function c_layout_local_count

    function c_layout_global_count(layout) bind(C, name="collio_layout_global_count") result(n)
      import :: c_ptr, c_int64_t
      type(c_ptr), value :: layout
      integer(c_int64_t) :: n
    end function c_layout_global_count

    function c_layout_esize(layout) bind(C, name="collio_layout_esize") result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: layout
      integer(c_size_t) :: n
    end function c_layout_esize

    function c_layout_global_index(layout, i) bind(C, name="collio_layout_global_index") &
        result(n)
      import :: c_ptr, c_int64_t
      type(c_ptr), value :: layout
      integer(c_int64_t), value :: i
      integer(c_int64_t) :: n
    end function c_layout_global_index

    function c_layout_buffer_bytes(layout) bind(C, name="collio_layout_buffer_bytes") &
        result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: layout
      integer(c_size_t) :: n
    end function c_layout_buffer_bytes

    subroutine c_layout_free(layout) bind(C, name="collio_layout_free")
      import :: c_ptr
      type(c_ptr), intent(inout) :: layout
    end subroutine c_layout_free

    subroutine c_file_options_init(opts) bind(C, name="collio_f_file_options_init")
      import :: collio_file_options
      type(collio_file_options), intent(out) :: opts
    end subroutine c_file_options_init

    function c_file_open(comm, path, mode, opts, out) bind(C, name="collio_f_file_open") &
        result(rc)
      import :: c_int, c_char, c_ptr, collio_file_options
      integer(c_int), value :: comm
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: mode
      type(collio_file_options), intent(in), optional :: opts
      type(c_ptr), intent(out) :: out
      integer(c_int) :: rc
    end function c_file_open

    function c_describe_h5(comm, h5, raw, base, type, ndims, dims, forder, dataset) &
        bind(C, name="collio_f_describe_h5") result(rc)
      import :: c_int, c_char, c_int64_t
      integer(c_int), value :: comm
      character(kind=c_char), intent(in) :: h5(*), raw(*)
      integer(c_int64_t), value :: base
      integer(c_int), value :: type, ndims
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int), value :: forder
      character(kind=c_char), intent(in) :: dataset(*)
      integer(c_int) :: rc
    end function c_describe_h5

    function c_have_h5() bind(C, name="collio_have_h5") result(n)
      import :: c_int
      integer(c_int) :: n
    end function c_have_h5

    function c_file_close(f) bind(C, name="collio_file_close") result(rc)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: f
      integer(c_int) :: rc
    end function c_file_close

    function c_file_abort(f) bind(C, name="collio_file_abort") result(rc)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: f
      integer(c_int) :: rc
    end function c_file_abort

    function c_file_path(f) bind(C, name="collio_file_path") result(s)
      import :: c_ptr
      type(c_ptr), value :: f
      type(c_ptr) :: s
    end function c_file_path

    function c_strategy_count() bind(C, name="collio_strategy_count") result(n)
      import :: c_int
      integer(c_int) :: n
    end function c_strategy_count

    function c_strategy_name(i) bind(C, name="collio_strategy_name") result(s)
      import :: c_int, c_ptr
      integer(c_int), value :: i
      type(c_ptr) :: s
    end function c_strategy_name

    function c_strategy_summary(name) bind(C, name="collio_strategy_summary") result(s)
      import :: c_char, c_ptr
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr) :: s
    end function c_strategy_summary

    function c_strategy_is_canonical(name) bind(C, name="collio_strategy_is_canonical") &
        result(n)
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: n
    end function c_strategy_is_canonical

    function c_option_value_name(key, x) bind(C, name="collio_option_value_name") result(s)
      import :: c_char, c_int, c_ptr
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int), value :: x
      type(c_ptr) :: s
    end function c_option_value_name

    function c_option_value(key, name) bind(C, name="collio_option_value") result(n)
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: key(*), name(*)
      integer(c_int) :: n
    end function c_option_value

    function c_plan_create(comm, layout, strategy, hints, out) &
        bind(C, name="collio_f_plan_create") result(rc)
      import :: c_int, c_char, c_ptr
      integer(c_int), value :: comm
      type(c_ptr), value :: layout
      character(kind=c_char), intent(in) :: strategy(*)
      type(c_ptr), value :: hints
      type(c_ptr), intent(out) :: out
      integer(c_int) :: rc
    end function c_plan_create

    function c_plan_hints(plan, out) bind(C, name="collio_plan_hints") result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
      type(c_ptr), intent(out) :: out
      integer(c_int) :: rc
    end function c_plan_hints

    function c_plan_stat(plan, key, value) bind(C, name="collio_plan_stat") result(rc)
      import :: c_int, c_ptr, c_char, c_double
      type(c_ptr), value :: plan
      character(kind=c_char), intent(in) :: key(*)
      real(c_double), intent(out) :: value
      integer(c_int) :: rc
    end function c_plan_stat

    function c_plan_stat_values(plan, key, values, max, count) &
      bind(C, name="collio_plan_stat_values") result(rc)
      import :: c_int, c_ptr, c_char, c_double
      type(c_ptr), value :: plan
      character(kind=c_char), intent(in) :: key(*)
      real(c_double), intent(inout) :: values(*)
      integer(c_int), value :: max
      integer(c_int), intent(out) :: count
      integer(c_int) :: rc
    end function c_plan_stat_values

    function c_hints_create(out) bind(C, name="collio_hints_create") result(rc)
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: out
      integer(c_int) :: rc
    end function c_hints_create

    subroutine c_hints_free(hints) bind(C, name="collio_hints_free")
      import :: c_ptr
      type(c_ptr), intent(inout) :: hints
    end subroutine c_hints_free

    function c_hints_set(hints, key, value) bind(C, name="collio_hints_set") result(rc)
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: hints
      character(kind=c_char), intent(in) :: key(*), value(*)
      integer(c_int) :: rc
    end function c_hints_set

    function c_hints_set_int(hints, key, value) bind(C, name="collio_hints_set_int") &
        result(rc)
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: hints
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int64_t), value :: value
      integer(c_int) :: rc
    end function c_hints_set_int

    function c_hints_parse(hints, list) bind(C, name="collio_hints_parse") result(rc)
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: hints
      character(kind=c_char), intent(in) :: list(*)
      integer(c_int) :: rc
    end function c_hints_parse

    function c_hints_set_info(hints, info) bind(C, name="collio_f_hints_set_info") &
        result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: hints
      integer(c_int), value :: info
      integer(c_int) :: rc
    end function c_hints_set_info

    function c_hints_get(hints, key, value, len, flag) bind(C, name="collio_hints_get") &
        result(rc)
      import :: c_int, c_ptr, c_char, c_size_t
      type(c_ptr), value :: hints
      character(kind=c_char), intent(in) :: key(*)
      character(kind=c_char), intent(inout) :: value(*)
      integer(c_size_t), value :: len
      integer(c_int), intent(out) :: flag
      integer(c_int) :: rc
    end function c_hints_get

    function c_hints_count(hints) bind(C, name="collio_hints_count") result(n)
      import :: c_int, c_ptr
      type(c_ptr), value :: hints
      integer(c_int) :: n
    end function c_hints_count

    function c_hints_key(hints, i) bind(C, name="collio_hints_key") result(s)
      import :: c_int, c_ptr
      type(c_ptr), value :: hints
      integer(c_int), value :: i
      type(c_ptr) :: s
    end function c_hints_key

    function c_option_count() bind(C, name="collio_option_count") result(n)
      import :: c_int
      integer(c_int) :: n
    end function c_option_count

    function c_option_describe(i, out) bind(C, name="collio_option_describe") result(rc)
      import :: c_int, c_option_info
      integer(c_int), value :: i
      type(c_option_info), intent(out) :: out
      integer(c_int) :: rc
    end function c_option_describe

    function c_stat_count() bind(C, name="collio_stat_count") result(n)
      import :: c_int
      integer(c_int) :: n
    end function c_stat_count

    function c_stat_describe(i, out) bind(C, name="collio_stat_describe") result(rc)
      import :: c_int, c_stat_info
      integer(c_int), value :: i
      type(c_stat_info), intent(out) :: out
      integer(c_int) :: rc
    end function c_stat_describe

    function c_collio_f_stats_offset(field) bind(C, name="collio_f_stats_offset") &
        result(n)
      import :: c_int, c_int64_t
      integer(c_int), value :: field
      integer(c_int64_t) :: n
    end function c_collio_f_stats_offset

    function c_collio_f_version(which) bind(C, name="collio_f_version") result(n)
      import :: c_int
      integer(c_int), value :: which
      integer(c_int) :: n
    end function c_collio_f_version

    function c_write_desc(plan, f, buf) bind(C, name="collio_f_write") result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, f
      type(*), dimension(..), intent(in) :: buf
      integer(c_int) :: rc
    end function c_write_desc

    function c_read_desc(plan, f, buf) bind(C, name="collio_f_read") result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, f
      type(*), dimension(..), intent(inout) :: buf
      integer(c_int) :: rc
    end function c_read_desc

    function c_write_at_desc(plan, f, offset, buf) bind(C, name="collio_f_write_at") &
        result(rc)
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: plan, f
      integer(c_int64_t), value :: offset
      type(*), dimension(..), intent(in) :: buf
      integer(c_int) :: rc
    end function c_write_at_desc

    function c_read_at_desc(plan, f, offset, buf) bind(C, name="collio_f_read_at") &
        result(rc)
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: plan, f
      integer(c_int64_t), value :: offset
      type(*), dimension(..), intent(inout) :: buf
      integer(c_int) :: rc
    end function c_read_at_desc

    function c_istart(plan, f, offset, buf, writing, req) bind(C, name="collio_f_istart") &
        result(rc)
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: plan, f
      integer(c_int64_t), value :: offset
      type(*), dimension(..), intent(in), asynchronous :: buf
      integer(c_int), value :: writing
      type(c_ptr), intent(out) :: req
      integer(c_int) :: rc
    end function c_istart

    function c_wait(req) bind(C, name="collio_wait") result(rc)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: req
      integer(c_int) :: rc
    end function c_wait

    function c_test(req, done) bind(C, name="collio_test") result(rc)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: req
      integer(c_int), intent(out) :: done
      integer(c_int) :: rc
    end function c_test

    function c_waitall(n, reqs, codes) bind(C, name="collio_waitall") result(rc)
      import :: c_int, c_ptr
      integer(c_int), value :: n
      type(c_ptr), intent(inout) :: reqs(*)
      integer(c_int), intent(out) :: codes(*)
      integer(c_int) :: rc
    end function c_waitall

    function c_layout_extents(comm, n, off, len, esize, out) &
        bind(C, name="collio_f_layout_extents") result(rc)
      import :: c_int, c_int64_t, c_size_t, c_ptr
      integer(c_int), value :: comm
      integer(c_int64_t), value :: n
      integer(c_int64_t), intent(in) :: off(*), len(*)
      integer(c_size_t), value :: esize
      type(c_ptr), intent(out) :: out
      integer(c_int) :: rc
    end function c_layout_extents

    function c_plan_predict(plan, f, writing, candidate, seconds) &
        bind(C, name="collio_plan_predict") result(rc)
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: plan, f
      integer(c_int), value :: writing
      integer(c_int), intent(out) :: candidate
      real(c_double), intent(out) :: seconds
      integer(c_int) :: rc
    end function c_plan_predict

    function c_plan_prepare(plan, f, writing) bind(C, name="collio_plan_prepare") &
        result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, f
      integer(c_int), value :: writing
      integer(c_int) :: rc
    end function c_plan_prepare

    function c_write(plan, f, buf, nbytes) bind(C, name="collio_write") result(rc)
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: plan, f, buf
      integer(c_size_t), value :: nbytes
      integer(c_int) :: rc
    end function c_write

    function c_read(plan, f, buf, nbytes) bind(C, name="collio_read") result(rc)
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: plan, f, buf
      integer(c_size_t), value :: nbytes
      integer(c_int) :: rc
    end function c_read

    function c_plan_stats(plan, out) bind(C, name="collio_plan_stats") result(rc)
      import :: c_int, c_ptr, collio_stats
      type(c_ptr), value :: plan
      type(collio_stats), intent(out) :: out
      integer(c_int) :: rc
    end function c_plan_stats

    function c_plan_strategy(plan) bind(C, name="collio_plan_strategy") result(s)
      import :: c_ptr
      type(c_ptr), value :: plan
      type(c_ptr) :: s
    end function c_plan_strategy

    subroutine c_plan_free(plan) bind(C, name="collio_plan_free")
      import :: c_ptr
      type(c_ptr), intent(inout) :: plan
    end subroutine c_plan_free
  end interface

contains

  ! ------------------------------------------------------------- helpers

  ! A C string (NULL: "") as a Fortran string.
  function f_string(s) result(r)
    type(c_ptr), intent(in) :: s
    character(len=:), allocatable :: r
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(s)) then
      r = ""
      return
    end if
    n = int(c_strlen(s))
    call c_f_pointer(s, chars, [n])
    allocate (character(len=n) :: r)
    do i = 1, n
      r(i:i) = chars(i)
    end do
  end function f_string

  ! A Fortran string as a NUL-terminated C string (trailing blanks dropped).
  pure function c_string(s) result(r)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=len_trim(s) + 1) :: r
    r = trim(s)//c_null_char
  end function c_string

  ! ------------------------------------------------------------- errors

  !> Text for an error code (local; never empty).
  function collio_strerror(code) result(s)
    integer, intent(in) :: code
    character(len=:), allocatable :: s
    s = f_string(c_collio_strerror(int(code, c_int)))
  end function collio_strerror

  !> One line on the last error this thread's collio calls returned, the
  !> same on every rank after a failed collective call; "" if none yet
  !> (local).
  function collio_last_error() result(s)
    character(len=:), allocatable :: s
    s = f_string(c_collio_last_error())
  end function collio_last_error

  !> 1 if the module's bind(C) types match the C structs they mirror --
  !> collio_stats field by field (offsets and size), the file options, the
  !> catalogue's entries -- and its COLLIO_VERSION_* parameters the
  !> library's header, else 0: a self-check for the tests and for builds
  !> with other compilers (local).
  function collio_fortran_check_types() result(ok)
    integer :: ok
    type(collio_stats), target :: st
    type(collio_file_options) :: fo
    type(c_option_info) :: oi
    type(c_stat_info) :: si
    integer(c_int64_t) :: off(14)
    integer :: k
    ok = 0
    off = [c_off(c_loc(st%inspect_s)), c_off(c_loc(st%exchange_s)), c_off(c_loc(st%copy_s)), &
           c_off(c_loc(st%file_s)), c_off(c_loc(st%total_s)), c_off(c_loc(st%bytes_sent)), &
           c_off(c_loc(st%messages)), c_off(c_loc(st%file_requests)), &
           c_off(c_loc(st%file_bytes)), c_off(c_loc(st%plan_bytes)), &
           c_off(c_loc(st%work_bytes)), c_off(c_loc(st%nnodes)), &
           c_off(c_loc(st%messages_offnode)), c_off(c_loc(st%bytes_offnode))]
    do k = 1, size(off)
      if (off(k) /= c_collio_f_stats_offset(int(k - 1, c_int))) return
    end do
    if (c_collio_f_stats_offset(int(size(off), c_int)) /= -1) return ! a field not mirrored
    if (c_sizeof(st) == c_collio_f_sizeof(2_c_int) .and. &
        c_sizeof(fo) == c_collio_f_sizeof(3_c_int) .and. &
        c_sizeof(oi) == c_collio_f_sizeof(4_c_int) .and. &
        c_sizeof(si) == c_collio_f_sizeof(5_c_int) .and. &
        c_collio_f_version(0_c_int) == COLLIO_VERSION_MAJOR .and. &
        c_collio_f_version(1_c_int) == COLLIO_VERSION_MINOR .and. &
        c_collio_f_version(2_c_int) == COLLIO_VERSION_PATCH) ok = 1
  contains
    ! the byte offset of a field of st
    function c_off(field) result(n)
      type(c_ptr), intent(in) :: field
      integer(c_int64_t) :: n
      n = int(transfer(field, 0_c_intptr_t) - transfer(c_loc(st), 0_c_intptr_t), c_int64_t)
    end function c_off
  end function collio_fortran_check_types

  ! ------------------------------------------------------------- layouts

  function layout_block_cyclic_f08(comm, nx, bx, esize, layout) result(rc)
    type(MPI_Comm), intent(in) :: comm
    integer(c_int64_t), intent(in) :: nx, bx
    integer, intent(in) :: esize
    type(collio_layout), intent(out) :: layout
    integer(c_int) :: rc
    rc = layout_block_cyclic_int(comm%MPI_VAL, nx, bx, esize, layout)
  end function layout_block_cyclic_f08

  function layout_block_cyclic_int(comm, nx, bx, esize, layout) result(rc)
    integer, intent(in) :: comm
    integer(c_int64_t), intent(in) :: nx, bx
    integer, intent(in) :: esize
    type(collio_layout), intent(out) :: layout
    integer(c_int) :: rc
    rc = c_layout_block_cyclic(int(comm, c_int), nx, bx, esize_c(esize), layout%ptr)
  end function layout_block_cyclic_int

  ! esize < 1 must reach the library (COLLIO_ERR_ARG on every rank): 0.
  pure function esize_c(esize) result(n)
    integer, intent(in) :: esize
    integer(c_size_t) :: n
    n = int(max(esize, 0), c_size_t)
  end function esize_c

  function layout_darray_f08(comm, gsizes, distribs, psizes, order, esize, layout, dargs) &
      result(rc)
    type(MPI_Comm), intent(in) :: comm
    integer(c_int64_t), intent(in) :: gsizes(:)
    integer, intent(in) :: distribs(:), psizes(:)
    integer, intent(in) :: order, esize
    type(collio_layout), intent(out) :: layout
    integer(c_int64_t), intent(in), optional :: dargs(:)
    integer(c_int) :: rc
    rc = layout_darray_int(comm%MPI_VAL, gsizes, distribs, psizes, order, esize, layout, &
                           dargs)
  end function layout_darray_f08

  function layout_darray_int(comm, gsizes, distribs, psizes, order, esize, layout, dargs) &
      result(rc)
    integer, intent(in) :: comm
    integer(c_int64_t), intent(in) :: gsizes(:)
    integer, intent(in) :: distribs(:), psizes(:)
    integer, intent(in) :: order, esize
    type(collio_layout), intent(out) :: layout
    integer(c_int64_t), intent(in), optional :: dargs(:)
    integer(c_int) :: rc
    integer(c_int64_t) :: g(COLLIO_MAX_DIMS), a(COLLIO_MAX_DIMS)
    integer(c_int) :: d(COLLIO_MAX_DIMS), p(COLLIO_MAX_DIMS), ndims
    ndims = int(size(gsizes), c_int)
    g = 1
    a = COLLIO_DARG_DEFAULT
    d = COLLIO_DIST_NONE
    p = 1
    if (ndims > COLLIO_MAX_DIMS .or. size(distribs) /= ndims .or. &
        size(psizes) /= ndims) then
      ndims = 0 ! the library's COLLIO_ERR_ARG, on every rank
    else if (present(dargs)) then
      if (size(dargs) /= ndims) ndims = 0
    end if
    if (ndims > 0) then
      g(1:ndims) = gsizes
      d(1:ndims) = int(distribs, c_int)
      p(1:ndims) = int(psizes, c_int)
      if (present(dargs)) a(1:ndims) = dargs
    end if
    rc = c_layout_darray(int(comm, c_int), ndims, g, d, a, p, int(order, c_int), &
                         esize_c(esize), layout%ptr)
  end function layout_darray_int

  function layout_index_list_f08(comm, nglobal, idx, esize, layout) result(rc)
    type(MPI_Comm), intent(in) :: comm
    integer(c_int64_t), intent(in) :: nglobal
    integer(c_int64_t), intent(in), contiguous :: idx(:)
    integer, intent(in) :: esize
    type(collio_layout), intent(out) :: layout
    integer(c_int) :: rc
    rc = layout_index_list_int(comm%MPI_VAL, nglobal, idx, esize, layout)
  end function layout_index_list_f08

  function layout_index_list_int(comm, nglobal, idx, esize, layout) result(rc)
    integer, intent(in) :: comm
    integer(c_int64_t), intent(in) :: nglobal
    integer(c_int64_t), intent(in), contiguous :: idx(:)
    integer, intent(in) :: esize
    type(collio_layout), intent(out) :: layout
    integer(c_int) :: rc
    integer(c_int64_t) :: dummy(1)
    if (size(idx) > 0) then
      rc = c_layout_index_list(int(comm, c_int), nglobal, int(size(idx), c_int64_t), idx, &
                               esize_c(esize), layout%ptr)
    else
      rc = c_layout_index_list(int(comm, c_int), nglobal, 0_c_int64_t, dummy, &
                               esize_c(esize), layout%ptr)
    end if
  end function layout_index_list_int

  function layout_extents_f08(comm, off, len, esize, layout) result(rc)
    type(MPI_Comm), intent(in) :: comm
    integer(c_int64_t), intent(in), contiguous :: off(:), len(:)
    integer, intent(in) :: esize
    type(collio_layout), intent(out) :: layout
    integer(c_int) :: rc
    rc = layout_extents_int(comm%MPI_VAL, off, len, esize, layout)
  end function layout_extents_f08

  !> (off and len of different sizes: COLLIO_ERR_ARG, local)
  function layout_extents_int(comm, off, len, esize, layout) result(rc)
    integer, intent(in) :: comm
    integer(c_int64_t), intent(in), contiguous :: off(:), len(:)
    integer, intent(in) :: esize
    type(collio_layout), intent(out) :: layout
    integer(c_int) :: rc
    integer(c_int64_t) :: dummy(1)
    if (size(off) /= size(len)) then
      rc = COLLIO_ERR_ARG
    else if (size(off) > 0) then
      rc = c_layout_extents(int(comm, c_int), int(size(off), c_int64_t), off, len, &
                            esize_c(esize), layout%ptr)
    else
      rc = c_layout_extents(int(comm, c_int), 0_c_int64_t, dummy, dummy, esize_c(esize), &
                            layout%ptr)
    end if
  end function layout_extents_int

  function layout_index_list_replicated_f08(comm, nglobal, idx, owned, esize, layout) &
      result(rc)
    type(MPI_Comm), intent(in) :: comm
    integer(c_int64_t), intent(in) :: nglobal
    integer(c_int64_t), intent(in), contiguous :: idx(:)
    logical, intent(in) :: owned(:)
    integer, intent(in) :: esize
    type(collio_layout), intent(out) :: layout
    integer(c_int) :: rc
    rc = layout_index_list_replicated_int(comm%MPI_VAL, nglobal, idx, owned, esize, layout)
  end function layout_index_list_replicated_f08

  function layout_index_list_replicated_int(comm, nglobal, idx, owned, esize, layout) &
      result(rc)
    integer, intent(in) :: comm
    integer(c_int64_t), intent(in) :: nglobal
    integer(c_int64_t), intent(in), contiguous :: idx(:)
    logical, intent(in) :: owned(:)
    integer, intent(in) :: esize
    type(collio_layout), intent(out) :: layout
    integer(c_int) :: rc
    integer(c_signed_char), allocatable :: own(:)
    integer(c_int64_t) :: dummy(1)
    allocate (own(max(size(idx), 1)))
    if (size(owned) == size(idx)) then
      own(1:size(idx)) = merge(1_c_signed_char, 0_c_signed_char, owned)
    else
      own = 2_c_signed_char ! not 0/1: the library's COLLIO_ERR_ARG on every rank
    end if
    if (size(idx) > 0) then
      rc = c_layout_index_list_replicated(int(comm, c_int), nglobal, &
                                          int(size(idx), c_int64_t), idx, own, &
                                          esize_c(esize), layout%ptr)
    else
      rc = c_layout_index_list_replicated(int(comm, c_int), nglobal, 0_c_int64_t, dummy, &
                                          own, esize_c(esize), layout%ptr)
    end if
  end function layout_index_list_replicated_int

  !> The buffer is the full-size global array; only this rank's entries are
  !> read or filled (local; before collio_plan_create).
  function collio_layout_set_memory_global(layout) result(rc)
    type(collio_layout), intent(in) :: layout
    integer(c_int) :: rc
    rc = c_layout_set_memory_global(layout%ptr)
  end function collio_layout_set_memory_global

  function layout_set_memory_datatype_f08(layout, dtype, count) result(rc)
    type(collio_layout), intent(in) :: layout
    type(MPI_Datatype), intent(in) :: dtype
    integer, intent(in) :: count
    integer(c_int) :: rc
    rc = c_layout_set_memory_datatype(layout%ptr, int(dtype%MPI_VAL, c_int), &
                                      int(count, c_int))
  end function layout_set_memory_datatype_f08

  function layout_set_memory_datatype_int(layout, dtype, count) result(rc)
    type(collio_layout), intent(in) :: layout
    integer, intent(in) :: dtype
    integer, intent(in) :: count
    integer(c_int) :: rc
    rc = c_layout_set_memory_datatype(layout%ptr, int(dtype, c_int), int(count, c_int))
  end function layout_set_memory_datatype_int

  !> Number of elements this rank holds (local).
  function collio_layout_local_count(layout) result(n)
    type(collio_layout), intent(in) :: layout
    integer(c_int64_t) :: n
    n = c_layout_local_count(layout%ptr)
  end function collio_layout_local_count

  !> Number of elements in the global file (local).
  function collio_layout_global_count(layout) result(n)
    type(collio_layout), intent(in) :: layout
    integer(c_int64_t) :: n
    n = c_layout_global_count(layout%ptr)
  end function collio_layout_global_count

  !> Element size in bytes (local).
  function collio_layout_esize(layout) result(n)
    type(collio_layout), intent(in) :: layout
    integer(c_int64_t) :: n
    n = int(c_layout_esize(layout%ptr), c_int64_t)
  end function collio_layout_esize

  !> 0-based global index of this rank's element i (0-based, layout order);
  !> -1 if i is out of range (local).
  function collio_layout_global_index(layout, i) result(n)
    type(collio_layout), intent(in) :: layout
    integer(c_int64_t), intent(in) :: i
    integer(c_int64_t) :: n
    n = c_layout_global_index(layout%ptr, i)
  end function collio_layout_global_index

  !> Bytes the buffer of collio_write / collio_read must have (local).
  function collio_layout_buffer_bytes(layout) result(n)
    type(collio_layout), intent(in) :: layout
    integer(c_int64_t) :: n
    n = int(c_layout_buffer_bytes(layout%ptr), c_int64_t)
  end function collio_layout_buffer_bytes

  !> Frees a layout (null-safe) and nulls it; plans made from it stay valid
  !> (local).
  subroutine collio_layout_free(layout)
    type(collio_layout), intent(inout) :: layout
    call c_layout_free(layout%ptr)
    layout%ptr = c_null_ptr
  end subroutine collio_layout_free

  ! --------------------------------------------------------------- files

  !> Fills opts with the defaults: POSIX backend, base_offset 0, sync 0,
  !> info MPI_INFO_NULL (local).
  subroutine collio_file_options_init(opts)
    type(collio_file_options), intent(out) :: opts
    call c_file_options_init(opts)
  end subroutine collio_file_options_init

  function file_open_f08(comm, path, mode, file, opts) result(rc)
    type(MPI_Comm), intent(in) :: comm
    character(len=*), intent(in) :: path
    integer, intent(in) :: mode
    type(collio_file), intent(out) :: file
    type(collio_file_options), intent(in), optional :: opts
    integer(c_int) :: rc
    rc = file_open_int(comm%MPI_VAL, path, mode, file, opts)
  end function file_open_f08

  function file_open_int(comm, path, mode, file, opts) result(rc)
    integer, intent(in) :: comm
    character(len=*), intent(in) :: path
    integer, intent(in) :: mode
    type(collio_file), intent(out) :: file
    type(collio_file_options), intent(in), optional :: opts
    integer(c_int) :: rc
    rc = c_file_open(int(comm, c_int), c_string(path), int(mode, c_int), opts, file%ptr)
  end function file_open_int

  !> .true. if collio was built with HDF5 (collio_describe_h5 works).
  function collio_have_h5() result(yes)
    logical :: yes
    yes = c_have_h5() /= 0
  end function collio_have_h5

  function describe_h5_f08(comm, h5_path, raw_path, type, dims, fortran_order, &
                           base_offset, dataset) result(rc)
    type(MPI_Comm), intent(in) :: comm
    character(len=*), intent(in) :: h5_path, raw_path
    integer, intent(in) :: type
    integer(c_int64_t), intent(in) :: dims(:)
    logical, intent(in) :: fortran_order
    integer(c_int64_t), intent(in), optional :: base_offset
    character(len=*), intent(in), optional :: dataset
    integer(c_int) :: rc
    rc = describe_h5_int(comm%MPI_VAL, h5_path, raw_path, type, dims, fortran_order, &
                         base_offset, dataset)
  end function describe_h5_f08

  function describe_h5_int(comm, h5_path, raw_path, type, dims, fortran_order, &
                           base_offset, dataset) result(rc)
    integer, intent(in) :: comm
    character(len=*), intent(in) :: h5_path, raw_path
    integer, intent(in) :: type
    integer(c_int64_t), intent(in) :: dims(:)
    logical, intent(in) :: fortran_order
    integer(c_int64_t), intent(in), optional :: base_offset
    character(len=*), intent(in), optional :: dataset
    integer(c_int) :: rc
    integer(c_int64_t) :: base
    integer(c_int) :: forder
    base = 0
    if (present(base_offset)) base = base_offset
    forder = 0
    if (fortran_order) forder = 1
    if (present(dataset)) then
      rc = c_describe_h5(int(comm, c_int), c_string(h5_path), c_string(raw_path), base, &
                         int(type, c_int), int(size(dims), c_int), dims, forder, &
                         c_string(dataset))
    else
      rc = c_describe_h5(int(comm, c_int), c_string(h5_path), c_string(raw_path), base, &
                         int(type, c_int), int(size(dims), c_int), dims, forder, &
                         c_string("data"))
    end if
  end function describe_h5_int

  !> Closes the file (CREATE: renames the temporary into place if every
  !> write on every rank succeeded, else COLLIO_ERR_IO and the previous file
  !> stays); file is nulled in every case (collective).
  function collio_file_close(file) result(rc)
    type(collio_file), intent(inout) :: file
    integer(c_int) :: rc
    rc = c_file_close(file%ptr)
    file%ptr = c_null_ptr
  end function collio_file_close

  !> Closes and discards (CREATE: the path is left as it was); file is
  !> nulled (collective).
  function collio_file_abort(file) result(rc)
    type(collio_file), intent(inout) :: file
    integer(c_int) :: rc
    rc = c_file_abort(file%ptr)
    file%ptr = c_null_ptr
  end function collio_file_abort

  !> The path given at open (local).
  function collio_file_path(file) result(s)
    type(collio_file), intent(in) :: file
    character(len=:), allocatable :: s
    s = f_string(c_file_path(file%ptr))
  end function collio_file_path

  ! ---------------------------------------------------------- strategies

  !> Number of registered strategies, "block" included (local).
  function collio_strategy_count() result(n)
    integer :: n
    n = int(c_strategy_count())
  end function collio_strategy_count

  !> Name of strategy i (0 <= i < count, as in C), "" if out of range
  !> (local).
  function collio_strategy_name(i) result(s)
    integer, intent(in) :: i
    character(len=:), allocatable :: s
    s = f_string(c_strategy_name(int(i, c_int)))
  end function collio_strategy_name

  !> One-line description of a strategy, "" if unknown (local).
  function collio_strategy_summary(name) result(s)
    character(len=*), intent(in) :: name
    character(len=:), allocatable :: s
    s = f_string(c_strategy_summary(c_string(name)))
  end function collio_strategy_summary

  !> 1 if the strategy writes the canonical order, 0 if not, -1 if unknown
  !> (local).
  function collio_strategy_is_canonical(name) result(n)
    character(len=*), intent(in) :: name
    integer :: n
    n = int(c_strategy_is_canonical(c_string(name)))
  end function collio_strategy_is_canonical

  !> The name of value VALUE of an option of type "name" (KEY
  !> "multiphase.exchange", "replicas.policy", "auto.only", ...; a stat of
  !> the same key holds such a value), "" where there is none (local).
  function collio_option_value_name(key, value) result(s)
    character(len=*), intent(in) :: key
    integer, intent(in) :: value
    character(len=:), allocatable :: s
    s = f_string(c_option_value_name(c_string(key), int(value, c_int)))
  end function collio_option_value_name

  !> The value of NAME for an option of type "name", -1 if either is
  !> unknown (local).
  function collio_option_value(key, name) result(n)
    character(len=*), intent(in) :: key, name
    integer :: n
    n = int(c_option_value(c_string(key), c_string(name)))
  end function collio_option_value

  ! --------------------------------------------------------------- plans

  function plan_create_f08(comm, layout, strategy, plan, hints) result(rc)
    type(MPI_Comm), intent(in) :: comm
    type(collio_layout), intent(in) :: layout
    character(len=*), intent(in), optional :: strategy
    type(collio_plan), intent(out) :: plan
    type(collio_hints), intent(in), optional :: hints
    integer(c_int) :: rc
    rc = plan_create_int(comm%MPI_VAL, layout, strategy, plan, hints)
  end function plan_create_f08

  function plan_create_int(comm, layout, strategy, plan, hints) result(rc)
    integer, intent(in) :: comm
    type(collio_layout), intent(in) :: layout
    character(len=*), intent(in), optional :: strategy
    type(collio_plan), intent(out) :: plan
    type(collio_hints), intent(in), optional :: hints
    integer(c_int) :: rc
    type(c_ptr) :: h
    h = c_null_ptr
    if (present(hints)) h = hints%ptr
    ! (blank or absent: "" to the shim, which passes NULL, the default)
    if (present(strategy)) then
      rc = c_plan_create(int(comm, c_int), layout%ptr, c_string(strategy), h, plan%ptr)
    else
      rc = c_plan_create(int(comm, c_int), layout%ptr, c_string(""), h, plan%ptr)
    end if
  end function plan_create_int

  !> Every option (every key of the catalogue) with the value the plan runs
  !> with -- defaults, the plan's hints and COLLIO_HINTS applied -- as a new
  !> set of hints, to read with collio_hints_get / _key and free with
  !> collio_hints_free (local).
  function collio_plan_hints(plan, hints) result(rc)
    type(collio_plan), intent(in) :: plan
    type(collio_hints), intent(out) :: hints
    integer(c_int) :: rc
    rc = c_plan_hints(plan%ptr, hints%ptr)
  end function collio_plan_hints

  !> One statistic by key (collio_plan_stat): a field of collio_stats by
  !> its name ("total_s") or "SECTION.NAME" ("replicas.intervals", ...;
  !> collio_stat_describe lists them). Unknown key, or a statistic of
  !> many values: COLLIO_ERR_ARG (local).
  function collio_plan_stat(plan, key, value) result(rc)
    type(collio_plan), intent(in) :: plan
    character(len=*), intent(in) :: key
    real(c_double), intent(out) :: value
    integer(c_int) :: rc
    rc = c_plan_stat(plan%ptr, c_string(key), value)
  end function collio_plan_stat

  !> Every value of one statistic by key (collio_plan_stat_values): values(1
  !> .. min(count, size(values))) get the values in use, count how many
  !> there are (1 for a scalar; for one of count > 1 in the catalogue, the
  !> value of its length statistic). values(k) is C's values[k-1].
  !> Unknown key: COLLIO_ERR_ARG (local).
  function collio_plan_stat_values(plan, key, values, count) result(rc)
    type(collio_plan), intent(in) :: plan
    character(len=*), intent(in) :: key
    real(c_double), intent(inout) :: values(:)
    integer, intent(out) :: count
    integer(c_int) :: rc, n
    real(c_double) :: none(1)
    if (size(values) > 0) then
      rc = c_plan_stat_values(plan%ptr, c_string(key), values, int(size(values), c_int), n)
    else
      rc = c_plan_stat_values(plan%ptr, c_string(key), none, 0_c_int, n)
    end if
    count = int(n)
  end function collio_plan_stat_values

  ! --------------------------------------------------------------- hints

  !> A new, empty set of hints (local).
  function collio_hints_create(hints) result(rc)
    type(collio_hints), intent(out) :: hints
    integer(c_int) :: rc
    rc = c_hints_create(hints%ptr)
  end function collio_hints_create

  !> Frees a set of hints (null-safe) and nulls it (local).
  subroutine collio_hints_free(hints)
    type(collio_hints), intent(inout) :: hints
    call c_hints_free(hints%ptr)
    hints%ptr = c_null_ptr
  end subroutine collio_hints_free

  function hints_set_text(hints, key, value) result(rc)
    type(collio_hints), intent(in) :: hints
    character(len=*), intent(in) :: key, value
    integer(c_int) :: rc
    rc = c_hints_set(hints%ptr, c_string(key), c_string(value))
  end function hints_set_text

  function hints_set_c_int(hints, key, value) result(rc)
    type(collio_hints), intent(in) :: hints
    character(len=*), intent(in) :: key
    integer(c_int), intent(in) :: value
    integer(c_int) :: rc
    rc = c_hints_set_int(hints%ptr, c_string(key), int(value, c_int64_t))
  end function hints_set_c_int

  function hints_set_c_int64(hints, key, value) result(rc)
    type(collio_hints), intent(in) :: hints
    character(len=*), intent(in) :: key
    integer(c_int64_t), intent(in) :: value
    integer(c_int) :: rc
    rc = c_hints_set_int(hints%ptr, c_string(key), value)
  end function hints_set_c_int64

  function hints_set_logical(hints, key, value) result(rc)
    type(collio_hints), intent(in) :: hints
    character(len=*), intent(in) :: key
    logical, intent(in) :: value
    integer(c_int) :: rc
    rc = c_hints_set_int(hints%ptr, c_string(key), merge(1_c_int64_t, 0_c_int64_t, value))
  end function hints_set_logical

  !> Sets every "KEY=VALUE" of a comma-separated list, e.g.
  !> "multiphase.exchange=direct,subgroup.group=4"; the pairs before the
  !> first bad one stay set (local).
  function collio_hints_parse(hints, list) result(rc)
    type(collio_hints), intent(in) :: hints
    character(len=*), intent(in) :: list
    integer(c_int) :: rc
    rc = c_hints_parse(hints%ptr, c_string(list))
  end function collio_hints_parse

  function hints_set_info_f08(hints, info) result(rc)
    type(collio_hints), intent(in) :: hints
    type(MPI_Info), intent(in) :: info
    integer(c_int) :: rc
    rc = c_hints_set_info(hints%ptr, int(info%MPI_VAL, c_int))
  end function hints_set_info_f08

  function hints_set_info_int(hints, info) result(rc)
    type(collio_hints), intent(in) :: hints
    integer, intent(in) :: info
    integer(c_int) :: rc
    rc = c_hints_set_info(hints%ptr, int(info, c_int))
  end function hints_set_info_int

  !> The value of KEY as text into value (blank-padded) and flag = .true.;
  !> flag = .false. (value untouched) if KEY is not set. COLLIO_ERR_ARG if
  !> the value is longer than len(value) (local).
  function collio_hints_get(hints, key, value, flag) result(rc)
    type(collio_hints), intent(in) :: hints
    character(len=*), intent(in) :: key
    character(len=*), intent(inout) :: value
    logical, intent(out) :: flag
    integer(c_int) :: rc
    character(kind=c_char) :: buf(len(value) + 1)
    integer(c_int) :: f
    integer :: i
    f = 0
    rc = c_hints_get(hints%ptr, c_string(key), buf, int(size(buf), c_size_t), f)
    flag = rc == COLLIO_OK .and. f /= 0
    if (.not. flag) return
    value = ""
    do i = 1, len(value)
      if (buf(i) == c_null_char) exit
      value(i:i) = buf(i)
    end do
  end function collio_hints_get

  !> Number of keys set (0 for a null set) (local).
  function collio_hints_count(hints) result(n)
    type(collio_hints), intent(in) :: hints
    integer :: n
    n = int(c_hints_count(hints%ptr))
  end function collio_hints_count

  !> The i-th key set (0 <= i < count, as in C), in the order keys were
  !> first set; "" if out of range (local).
  function collio_hints_key(hints, i) result(s)
    type(collio_hints), intent(in) :: hints
    integer, intent(in) :: i
    character(len=:), allocatable :: s
    s = f_string(c_hints_key(hints%ptr, int(i, c_int)))
  end function collio_hints_key

  ! ----------------------------------------------------------- catalogue

  !> Number of options in the catalogue, every section's (local).
  function collio_option_count() result(n)
    integer :: n
    n = int(c_option_count())
  end function collio_option_count

  !> The i-th option (0 <= i < collio_option_count(), as in C), in section
  !> order: "plan", "replicas", then the strategies in registry order.
  !> COLLIO_ERR_ARG for i out of range (info left unallocated) (local).
  function collio_option_describe(i, info) result(rc)
    integer, intent(in) :: i
    type(collio_option_info), intent(out) :: info
    integer(c_int) :: rc
    type(c_option_info) :: o
    rc = c_option_describe(int(i, c_int), o)
    if (rc /= COLLIO_OK) return
    info%key = f_string(o%key)
    info%type = f_string(o%type)
    info%deflt = f_string(o%deflt)
    info%range = f_string(o%range)
    info%doc = f_string(o%doc)
  end function collio_option_describe

  !> Number of statistics in the catalogue (local).
  function collio_stat_count() result(n)
    integer :: n
    n = int(c_stat_count())
  end function collio_stat_count

  !> The i-th statistic (0 <= i < collio_stat_count(), as in C): the fields
  !> of collio_stats first, then every section's. COLLIO_ERR_ARG for i out
  !> of range (local).
  function collio_stat_describe(i, info) result(rc)
    integer, intent(in) :: i
    type(collio_stat_info), intent(out) :: info
    integer(c_int) :: rc
    type(c_stat_info) :: o
    rc = c_stat_describe(int(i, c_int), o)
    if (rc /= COLLIO_OK) return
    info%key = f_string(o%key)
    info%doc = f_string(o%doc)
    info%per_call = o%per_call /= 0
    info%count = int(o%count)
    info%length = f_string(o%length)
  end function collio_stat_describe

  !> Writes this rank's data from buf -- any array or scalar, of any type
  !> and rank, whose bytes are collio_layout_buffer_bytes (else
  !> COLLIO_ERR_BUFSIZE on every rank) -- into file, open for CREATE or
  !> INPLACE (collective).
  function collio_write(plan, file, buf) result(rc)
    type(collio_plan), intent(in) :: plan
    type(collio_file), intent(in) :: file
    type(*), dimension(..), intent(in), contiguous :: buf
    integer(c_int) :: rc
    rc = c_write_desc(plan%ptr, file%ptr, buf)
  end function collio_write

  !> Reads this rank's data from file into buf (as collio_write's buf)
  !> (collective).
  function collio_read(plan, file, buf) result(rc)
    type(collio_plan), intent(in) :: plan
    type(collio_file), intent(in) :: file
    type(*), dimension(..), intent(inout), contiguous :: buf
    integer(c_int) :: rc
    rc = c_read_desc(plan%ptr, file%ptr, buf)
  end function collio_read

  !> collio_write with the data placed offset bytes further into the file
  !> (0 or more, the same on every rank): one file, one plan, one call
  !> per variable (collective).
  function collio_write_at(plan, file, offset, buf) result(rc)
    type(collio_plan), intent(in) :: plan
    type(collio_file), intent(in) :: file
    integer(c_int64_t), intent(in) :: offset
    type(*), dimension(..), intent(in), contiguous :: buf
    integer(c_int) :: rc
    rc = c_write_at_desc(plan%ptr, file%ptr, offset, buf)
  end function collio_write_at

  !> collio_read from offset bytes further into the file, as
  !> collio_write_at places it (collective).
  function collio_read_at(plan, file, offset, buf) result(rc)
    type(collio_plan), intent(in) :: plan
    type(collio_file), intent(in) :: file
    integer(c_int64_t), intent(in) :: offset
    type(*), dimension(..), intent(inout), contiguous :: buf
    integer(c_int) :: rc
    rc = c_read_at_desc(plan%ptr, file%ptr, offset, buf)
  end function collio_read_at

  !> Starts collio_write_at(plan, file, offset, buf) and sets req
  !> (collective; docs/requests.md): buf must be a contiguous array that
  !> stays unmodified until the request completes (declare it
  !> ASYNCHRONOUS); a non-contiguous one fails the request
  !> (COLLIO_ERR_BUFSIZE) on every rank.
  function collio_iwrite_at(plan, file, offset, buf, req) result(rc)
    type(collio_plan), intent(in) :: plan
    type(collio_file), intent(in) :: file
    integer(c_int64_t), intent(in) :: offset
    type(*), dimension(..), intent(in), asynchronous :: buf
    type(collio_request), intent(out) :: req
    integer(c_int) :: rc
    rc = c_istart(plan%ptr, file%ptr, offset, buf, 1_c_int, req%ptr)
  end function collio_iwrite_at

  !> Starts collio_read_at(plan, file, offset, buf) (collective): buf is
  !> filled once the request completes.
  function collio_iread_at(plan, file, offset, buf, req) result(rc)
    type(collio_plan), intent(in) :: plan
    type(collio_file), intent(in) :: file
    integer(c_int64_t), intent(in) :: offset
    type(*), dimension(..), intent(inout), asynchronous :: buf
    type(collio_request), intent(out) :: req
    integer(c_int) :: rc
    rc = c_istart(plan%ptr, file%ptr, offset, buf, 0_c_int, req%ptr)
  end function collio_iread_at

  !> Completes req (collio_wait): its code, the same on every rank.
  function collio_wait(req) result(rc)
    type(collio_request), intent(inout) :: req
    integer(c_int) :: rc
    rc = c_wait(req%ptr)
  end function collio_wait

  !> Completes req if it has run (done .true.; collio_test).
  function collio_test(req, done) result(rc)
    type(collio_request), intent(inout) :: req
    logical, intent(out) :: done
    integer(c_int) :: rc, d
    rc = c_test(req%ptr, d)
    done = d /= 0
  end function collio_test

  !> Completes every request of reqs (collio_waitall): those of one plan
  !> on one file run together. codes (optional): each one's code.
  function collio_waitall(reqs, codes) result(rc)
    type(collio_request), intent(inout) :: reqs(:)
    integer(c_int), intent(out), optional :: codes(:)
    integer(c_int) :: rc
    type(c_ptr) :: p(max(size(reqs), 1))
    integer(c_int) :: c(max(size(reqs), 1))
    integer :: i
    do i = 1, size(reqs)
      p(i) = reqs(i)%ptr
    end do
    rc = c_waitall(int(size(reqs), c_int), p, c)
    do i = 1, size(reqs)
      reqs(i)%ptr = p(i)
    end do
    if (present(codes)) codes(1:size(reqs)) = c(1:size(reqs))
  end function collio_waitall

  !> What the plan would run for a write (writing .true.) or a read of
  !> file, without running anything (local): for strategy "auto" the
  !> candidate its model picks -- its name is
  !> collio_option_value_name("auto.only", candidate + 1) -- and its
  !> predicted seconds; for the others candidate = -1, seconds = -1.
  function collio_plan_predict(plan, file, writing, candidate, seconds) result(rc)
    type(collio_plan), intent(in) :: plan
    type(collio_file), intent(in) :: file
    logical, intent(in) :: writing
    integer, intent(out) :: candidate
    real(c_double), intent(out) :: seconds
    integer(c_int) :: rc, c
    c = -1
    seconds = -1
    rc = c_plan_predict(plan%ptr, file%ptr, merge(1_c_int, 0_c_int, writing), c, seconds)
    candidate = int(c)
  end function collio_plan_predict

  !> Does now what the first write (writing .true.) or read of file would
  !> do before moving data: for "auto", measure the file system where no
  !> calibration covers it, choose, make the chosen plan (collective).
  function collio_plan_prepare(plan, file, writing) result(rc)
    type(collio_plan), intent(in) :: plan
    type(collio_file), intent(in) :: file
    logical, intent(in) :: writing
    integer(c_int) :: rc
    rc = c_plan_prepare(plan%ptr, file%ptr, merge(1_c_int, 0_c_int, writing))
  end function collio_plan_prepare

  !> collio_write from a C address and a byte count, as in C (collective).
  function collio_write_ptr(plan, file, buf, nbytes) result(rc)
    type(collio_plan), intent(in) :: plan
    type(collio_file), intent(in) :: file
    type(c_ptr), intent(in) :: buf
    integer(c_int64_t), intent(in) :: nbytes
    integer(c_int) :: rc
    rc = c_write(plan%ptr, file%ptr, buf, int(max(nbytes, 0_c_int64_t), c_size_t))
  end function collio_write_ptr

  !> collio_read into a C address with a byte count, as in C (collective).
  function collio_read_ptr(plan, file, buf, nbytes) result(rc)
    type(collio_plan), intent(in) :: plan
    type(collio_file), intent(in) :: file
    type(c_ptr), intent(in) :: buf
    integer(c_int64_t), intent(in) :: nbytes
    integer(c_int) :: rc
    rc = c_read(plan%ptr, file%ptr, buf, int(max(nbytes, 0_c_int64_t), c_size_t))
  end function collio_read_ptr

  !> Copies the plan's statistics into stats (local).
  function collio_plan_stats(plan, stats) result(rc)
    type(collio_plan), intent(in) :: plan
    type(collio_stats), intent(out) :: stats
    integer(c_int) :: rc
    rc = c_plan_stats(plan%ptr, stats)
  end function collio_plan_stats

  !> The plan's strategy name (local).
  function collio_plan_strategy(plan) result(s)
    type(collio_plan), intent(in) :: plan
    character(len=:), allocatable :: s
    s = f_string(c_plan_strategy(plan%ptr))
  end function collio_plan_strategy

  !> Frees a plan (null-safe) and nulls it (collective).
  subroutine collio_plan_free(plan)
    type(collio_plan), intent(inout) :: plan
    call c_plan_free(plan%ptr)
    plan%ptr = c_null_ptr
  end subroutine collio_plan_free

end module collio
