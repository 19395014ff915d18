! io_fortran_f08.f90 -- plain MPI-IO from Fortran through `use mpi_f08`,
! as io_fortran.f90 does it through `use mpi`: a 1-D REAL vector of nx
! elements, block-cyclic with block bx over the ranks (a darray filetype),
! set as the view at displacement disp, written collectively -- the first
! half of each rank's elements with MPI_File_write_all, the rest with
! MPI_File_write_at_all (or their split forms) -- read back with
! MPI_File_read_all and MPI_File_read_at_all (or theirs), every status's
! MPI_Get_count and every value checked; rank 0 then reads the whole file
! with Fortran stream I/O (independent of MPI-IO and of any interposer)
! and checks every element, the untouched bytes before disp and the size.
!
! Under Open MPI the mpi_f08 routines reach the interposer's entry points
! (interposer/fortran.c, ompi_file_*_f); under MPICH they do not (they call
! PMPI_File_* directly) and the calls go to MPI unchanged. Rank 0 first
! prints where the f08 route's open resolves (io_fortran_where.c), the line
! tests/mpiio/compare.sh checks (with --unreached under MPICH).
!
! --mode section: the same calls with array sections as buffers (every
! other element of a 2-d array: not contiguous); the split forms only
! where MPI_SUBARRAYS_SUPPORTED (MPICH's), as the standard allows them.
! --mode iall: the non-blocking forms (MPI_File_iwrite_all, ...),
! contiguous buffers, completed by MPI_Waitall and MPI_Wait, every
! status's count checked; --mode isection: the same with an array section
! in one write and one read (only where MPI_SUBARRAYS_SUPPORTED: MPICH's;
! its own f08 routines, MPICH 4.0.2, crash on them in the wait).
!
! usage: io_fortran_f08 FILE [--nx N] [--bx B] [--mode all|split|section|iall|isection]
!                            [--disp BYTES]
! Exits 1 when anything read differs from the expected values.
program io_fortran_f08
  use mpi_f08
  use io_fortran_file
  implicit none
  character(len=4096) :: path, arg
  character(len=16) :: mode, ftype
  integer(i8) :: nx, bx, dispi
  integer(kind=MPI_OFFSET_KIND) :: disp, off
  integer :: rank, nproc, i, n, n1
  logical :: sect
  type(MPI_File) :: fh
  type(MPI_Datatype) :: ft
  type(MPI_Status) :: st, sts(2)
  type(MPI_Request) :: rq(2)
  integer(i8), allocatable :: g(:)
  real, allocatable :: buf(:), rbuf(:), b2(:, :), r2(:, :)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  call io_fortran_f08_where(rank)

  call args_msg(path, nx, bx, dispi, mode, ftype, arg)
  if (arg == 'usage') &
    call fail('usage: io_fortran_f08 FILE [--nx N] [--bx B] ' &
              //'[--mode all|split|section|iall|isection] ' &
              //'[--disp BYTES]')
  if (arg /= '') call fail(trim(arg))
  if (trim(mode) /= 'all' .and. trim(mode) /= 'split' .and. trim(mode) /= 'section' &
      .and. trim(mode) /= 'iall' .and. trim(mode) /= 'isection') &
    call fail('unknown --mode '//trim(mode))
  if (trim(ftype) /= 'darray') call fail('--type: darray only')
  if (trim(mode) == 'isection' .and. .not. MPI_SUBARRAYS_SUPPORTED) &
    call fail('--mode isection: array sections in non-blocking calls need '// &
              'MPI_SUBARRAYS_SUPPORTED')
  sect = trim(mode) == 'isection'
  disp = dispi

  call rank_elements(nx, bx, rank, nproc, g, n)
  allocate (buf(n + 1), rbuf(n + 1))
  do i = 1, n
    buf(i) = val(g(i))
  end do
  n1 = n / 2
  off = n1

  call MPI_Type_create_darray(nproc, rank, 1, [int(nx)], [MPI_DISTRIBUTE_CYCLIC], [int(bx)], &
                              [nproc], MPI_ORDER_FORTRAN, MPI_REAL, ft)
  call MPI_Type_commit(ft)
  call MPI_File_open(MPI_COMM_WORLD, trim(path), MPI_MODE_CREATE + MPI_MODE_RDWR, &
                     MPI_INFO_NULL, fh, i)
  call check(i, 'MPI_File_open '//trim(path))
  call MPI_File_set_view(fh, disp, MPI_REAL, ft, 'native', MPI_INFO_NULL, i)
  call check(i, 'MPI_File_set_view')
  if (trim(mode) == 'all') then
    call MPI_File_write_all(fh, buf, n1, MPI_REAL, st, i)
    call check_count(i, n1, 'MPI_File_write_all')
    call MPI_File_write_at_all(fh, off, buf(n1 + 1), n - n1, MPI_REAL, st, i)
    call check_count(i, n - n1, 'MPI_File_write_at_all')
    rbuf = -1.0
    call MPI_File_read_at_all(fh, 0_MPI_OFFSET_KIND, rbuf, n, MPI_REAL, st, i)
    call check_count(i, n, 'MPI_File_read_at_all')
    call check_values(rbuf, n, 0, 'MPI_File_read_at_all')
    ! the individual pointer: after the first half written
    rbuf = -1.0
    call MPI_File_read_all(fh, rbuf, n - n1, MPI_REAL, st, i)
    call check_count(i, n - n1, 'MPI_File_read_all')
    call check_values(rbuf, n - n1, n1, 'MPI_File_read_all')
  else if (trim(mode) == 'iall' .or. sect) then
    ! the non-blocking forms, both writes outstanding at once and completed
    ! together: the first half from a contiguous buffer, the second from
    ! one too or (isection) from an array section (every other element of a
    ! 2 x n array); read back the same way, each read completed by MPI_Wait
    allocate (b2(2, n), r2(2, n))
    b2(1, :) = buf(1:n)
    b2(2, :) = -7.0
    call MPI_File_iwrite_all(fh, buf, n1, MPI_REAL, rq(1), i)
    call check(i, 'MPI_File_iwrite_all')
    if (sect) then
      call MPI_File_iwrite_at_all(fh, off, b2(1, n1 + 1:n), n - n1, MPI_REAL, rq(2), i)
    else
      call MPI_File_iwrite_at_all(fh, off, buf(n1 + 1), n - n1, MPI_REAL, rq(2), i)
    end if
    call check(i, 'MPI_File_iwrite_at_all (section)')
    call MPI_Waitall(2, rq, sts, i)
    st = sts(1)
    call check_count(i, n1, 'MPI_File_iwrite_all')
    st = sts(2)
    call check_count(i, n - n1, 'MPI_File_iwrite_at_all (section)')
    r2 = -1.0
    rbuf = -1.0
    if (sect) then
      call MPI_File_iread_at_all(fh, 0_MPI_OFFSET_KIND, r2(1, :), n, MPI_REAL, rq(1), i)
    else
      call MPI_File_iread_at_all(fh, 0_MPI_OFFSET_KIND, rbuf, n, MPI_REAL, rq(1), i)
    end if
    call check(i, 'MPI_File_iread_at_all (section)')
    call MPI_Wait(rq(1), st, i)
    call check_count(i, n, 'MPI_File_iread_at_all (section)')
    if (sect) then
      call check_values(r2(1, :), n, 0, 'MPI_File_iread_at_all (section)')
      if (any(r2(2, :) /= -1.0)) call fail('MPI_File_iread_at_all (section) wrote between')
    else
      call check_values(rbuf, n, 0, 'MPI_File_iread_at_all')
    end if
    rbuf = -1.0
    call MPI_File_iread_all(fh, rbuf, n - n1, MPI_REAL, rq(1), i)
    call check(i, 'MPI_File_iread_all')
    call MPI_Wait(rq(1), st, i)
    call check_count(i, n - n1, 'MPI_File_iread_all')
    call check_values(rbuf, n - n1, n1, 'MPI_File_iread_all')
  else if (trim(mode) == 'section') then
    ! buffers that are array sections, not contiguous: every other element
    ! of a 2 x n array, written and read whole and split; the elements
    ! between must stay as they were
    allocate (b2(2, n), r2(2, n))
    b2(1, :) = buf(1:n)
    b2(2, :) = -7.0
    call MPI_File_write_all(fh, b2(1, 1:n1), n1, MPI_REAL, st, i)
    call check_count(i, n1, 'MPI_File_write_all (section)')
    if (MPI_SUBARRAYS_SUPPORTED) then ! (else a section in a split call is erroneous)
      call MPI_File_write_at_all_begin(fh, off, b2(1, n1 + 1:n), n - n1, MPI_REAL, i)
      call check(i, 'MPI_File_write_at_all_begin (section)')
      call MPI_File_write_at_all_end(fh, b2(1, n1 + 1:n), st, i)
    else
      call MPI_File_write_at_all(fh, off, b2(1, n1 + 1:n), n - n1, MPI_REAL, st, i)
    end if
    call check_count(i, n - n1, 'MPI_File_write_at_all(_end) (section)')
    r2 = -1.0
    call MPI_File_read_at_all(fh, 0_MPI_OFFSET_KIND, r2(1, :), n, MPI_REAL, st, i)
    call check_count(i, n, 'MPI_File_read_at_all (section)')
    call check_values(r2(1, :), n, 0, 'MPI_File_read_at_all (section)')
    if (any(r2(2, :) /= -1.0)) call fail('MPI_File_read_at_all (section) wrote between')
    r2 = -1.0
    if (MPI_SUBARRAYS_SUPPORTED) then
      call MPI_File_read_all_begin(fh, r2(1, 1:n - n1), n - n1, MPI_REAL, i)
      call check(i, 'MPI_File_read_all_begin (section)')
      call MPI_File_read_all_end(fh, r2(1, 1:n - n1), st, i)
    else
      call MPI_File_read_all(fh, r2(1, 1:n - n1), n - n1, MPI_REAL, st, i)
    end if
    call check_count(i, n - n1, 'MPI_File_read_all(_end) (section)')
    call check_values(r2(1, 1:n - n1), n - n1, n1, 'MPI_File_read_all_end (section)')
    if (any(r2(2, :) /= -1.0)) call fail('MPI_File_read_all_end (section) wrote between')
  else
    call MPI_File_write_all_begin(fh, buf, n1, MPI_REAL, i)
    call check(i, 'MPI_File_write_all_begin')
    call MPI_File_write_all_end(fh, buf, st, i)
    call check_count(i, n1, 'MPI_File_write_all_end')
    call MPI_File_write_at_all_begin(fh, off, buf(n1 + 1), n - n1, MPI_REAL, i)
    call check(i, 'MPI_File_write_at_all_begin')
    call MPI_File_write_at_all_end(fh, buf(n1 + 1), st, i)
    call check_count(i, n - n1, 'MPI_File_write_at_all_end')
    rbuf = -1.0
    call MPI_File_read_at_all_begin(fh, 0_MPI_OFFSET_KIND, rbuf, n, MPI_REAL, i)
    call check(i, 'MPI_File_read_at_all_begin')
    call MPI_File_read_at_all_end(fh, rbuf, st, i)
    call check_count(i, n, 'MPI_File_read_at_all_end')
    call check_values(rbuf, n, 0, 'MPI_File_read_at_all_end')
    rbuf = -1.0
    call MPI_File_read_all_begin(fh, rbuf, n - n1, MPI_REAL, i)
    call check(i, 'MPI_File_read_all_begin')
    call MPI_File_read_all_end(fh, rbuf, st, i)
    call check_count(i, n - n1, 'MPI_File_read_all_end')
    call check_values(rbuf, n - n1, n1, 'MPI_File_read_all_end')
  end if
  call MPI_File_close(fh, i)
  call check(i, 'MPI_File_close')
  if (fh /= MPI_FILE_NULL) call fail('MPI_File_close left the handle not MPI_FILE_NULL')
  call MPI_Type_free(ft)
  call MPI_Barrier(MPI_COMM_WORLD)

  ! rank 0: the whole file by stream I/O
  if (rank == 0) then
    call file_msg(trim(path), int(disp, i8), nx, arg)
    if (arg /= '') call fail(trim(arg))
    write (*, '(a,a,a,i0,a,i0,a,i0,a,i0,a)') 'io_fortran_f08: OK (', trim(mode), ', nx ', &
      nx, ', bx ', bx, ', disp ', disp, ', ', nproc, ' ranks)'
  end if
  call MPI_Finalize()

contains

  subroutine fail(msg)
    character(len=*), intent(in) :: msg
    write (*, '(a,i0,a,a)') 'io_fortran_f08: rank ', rank, ': FAIL: ', msg
    flush (6)
    call MPI_Abort(MPI_COMM_WORLD, 1)
    stop 1
  end subroutine fail

  subroutine check(ierr, what)
    integer, intent(in) :: ierr
    character(len=*), intent(in) :: what
    character(len=MPI_MAX_ERROR_STRING) :: text
    integer :: ln
    if (ierr == MPI_SUCCESS) return
    call MPI_Error_string(ierr, text, ln)
    call fail(what//': '//text(1:ln))
  end subroutine check

  ! The call succeeded and its status says c REALs.
  subroutine check_count(ierr, c, what)
    integer, intent(in) :: ierr, c
    character(len=*), intent(in) :: what
    integer :: got
    character(len=64) :: line
    call check(ierr, what)
    call MPI_Get_count(st, MPI_REAL, got)
    if (got /= c) then
      write (line, '(a,i0,a,i0)') ' count ', got, ', expected ', c
      call fail(what//trim(line))
    end if
  end subroutine check_count

  ! got(1:m) against this rank's elements from local index first (0-based).
  subroutine check_values(got, m, first, what)
    integer, intent(in) :: m, first
    real, intent(in) :: got(*)
    character(len=*), intent(in) :: what
    character(len=128) :: msg
    call values_msg(got, m, first, g, msg)
    if (msg /= '') call fail(what//trim(msg))
  end subroutine check_values
end program io_fortran_f08
