! fortran_f08.f90 -- `use mpi_f08` under MPICH: the routines a program's
! MPI-IO calls reach, defined by the interposer too (built with an MPICH
! and gfortran only; Open MPI's route is fortran.c's aliases).
!
! Why: MPICH's mpi_f08 routines (libmpichfort: mpi_file_open_f08_,
! mpi_file_write_all_f08ts_, ...) convert their arguments and call the C
! PMPI_File_* entry points themselves, past any C interposer. A program
! compiled with `use mpi_f08` calls them by these external names, so a
! preloaded library that defines the same names comes first: each here
! hands its call to fortran.c's entry point of the same call (open, close,
! set_view, finalize: the mpif.h ones, by their hidden aliases cmio_f_*)
! or to fortran_f08.c (the data calls: the buffer as a C descriptor,
! ISO_Fortran_binding.h, which tells a contiguous buffer from an array
! section).
!
! The dummies are MPICH's, declared without its module, so that nothing
! here needs libmpichfort: type(MPI_File), type(MPI_Comm), type(MPI_Info)
! and type(MPI_Datatype) are bind(C) types of one default integer (the
! mpif.h handle), passed by reference as that integer is; type(MPI_Status)
! is MPICH's MPI_F08_status, five integers in the C MPI_Status's order;
! an absent optional ierror is a null reference under gfortran, as under
! MPICH's own routines.
module cmio_f08_c
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t
  implicit none
  ! the data calls, as fortran_f08.c numbers them (enum f08_op there)
  integer(c_int), parameter :: F08_WRITE_ALL = 1, F08_WRITE_AT_ALL = 2, &
    F08_READ_ALL = 3, F08_READ_AT_ALL = 4, F08_WRITE_ALL_BEGIN = 5, &
    F08_WRITE_ALL_END = 6, F08_WRITE_AT_ALL_BEGIN = 7, F08_WRITE_AT_ALL_END = 8, &
    F08_READ_ALL_BEGIN = 9, F08_READ_ALL_END = 10, F08_READ_AT_ALL_BEGIN = 11, &
    F08_READ_AT_ALL_END = 12, F08_IWRITE_ALL = 13, F08_IWRITE_AT_ALL = 14, &
    F08_IREAD_ALL = 15, F08_IREAD_AT_ALL = 16
  interface
    subroutine cmio_f08_data(op, fh, offset, buf, count, datatype, status, rc) &
      bind(C, name="cmio_f08_data")
      import :: c_int, c_int64_t
      integer(c_int), value :: op
      integer(c_int), intent(in) :: fh, count, datatype
      integer(c_int64_t), value :: offset
      type(*), dimension(..) :: buf
      integer(c_int) :: status(*)
      integer(c_int), intent(out) :: rc
    end subroutine cmio_f08_data
    subroutine cmio_f08_nb(op, fh, offset, buf, count, datatype, request, rc) &
      bind(C, name="cmio_f08_nb")
      import :: c_int, c_int64_t
      integer(c_int), value :: op
      integer(c_int), intent(in) :: fh, count, datatype
      integer(c_int64_t), value :: offset
      type(*), dimension(..) :: buf
      integer(c_int), intent(out) :: request, rc
    end subroutine cmio_f08_nb
    subroutine cmio_f_file_open(comm, filename, amode, info, fh, ierr)
      integer :: comm, amode, info, fh, ierr
      character(len=*) :: filename
    end subroutine cmio_f_file_open
    subroutine cmio_f_file_close(fh, ierr)
      integer :: fh, ierr
    end subroutine cmio_f_file_close
    subroutine cmio_f_file_set_view(fh, disp, etype, filetype, datarep, info, ierr)
      import :: c_int64_t
      integer :: fh, etype, filetype, info, ierr
      integer(c_int64_t) :: disp
      character(len=*) :: datarep
    end subroutine cmio_f_file_set_view
    subroutine cmio_f_finalize(ierr)
      integer :: ierr
    end subroutine cmio_f_finalize
  end interface
end module cmio_f08_c

subroutine mpi_file_open_f08(comm, filename, amode, info, fh, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: comm, amode, info
  character(len=*), intent(in) :: filename
  integer, intent(out) :: fh
  integer, optional, intent(out) :: ierror
  integer :: rc
  call cmio_f_file_open(comm, filename, amode, info, fh, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_open_f08

subroutine mpi_file_close_f08(fh, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(inout) :: fh
  integer, optional, intent(out) :: ierror
  integer :: rc
  call cmio_f_file_close(fh, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_close_f08

subroutine mpi_file_set_view_f08(fh, disp, etype, filetype, datarep, info, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh, etype, filetype, info
  integer(c_int64_t), intent(in) :: disp
  character(len=*), intent(in) :: datarep
  integer, optional, intent(out) :: ierror
  integer :: rc
  call cmio_f_file_set_view(fh, disp, etype, filetype, datarep, info, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_set_view_f08

subroutine mpi_finalize_f08(ierror)
  use cmio_f08_c
  implicit none
  integer, optional, intent(out) :: ierror
  integer :: rc
  call cmio_f_finalize(rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_finalize_f08

! ------------------------------------------------ the collective data calls

subroutine mpi_file_write_all_f08ts(fh, buf, count, datatype, status, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh, count, datatype
  type(*), dimension(..), intent(in) :: buf
  integer :: status(*)
  integer, optional, intent(out) :: ierror
  integer(c_int) :: rc
  call cmio_f08_data(F08_WRITE_ALL, fh, -1_c_int64_t, buf, count, datatype, status, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_write_all_f08ts

subroutine mpi_file_write_at_all_f08ts(fh, offset, buf, count, datatype, status, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh, count, datatype
  integer(c_int64_t), intent(in) :: offset
  type(*), dimension(..), intent(in) :: buf
  integer :: status(*)
  integer, optional, intent(out) :: ierror
  integer(c_int) :: rc
  call cmio_f08_data(F08_WRITE_AT_ALL, fh, offset, buf, count, datatype, status, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_write_at_all_f08ts

subroutine mpi_file_read_all_f08ts(fh, buf, count, datatype, status, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh, count, datatype
  type(*), dimension(..) :: buf
  integer :: status(*)
  integer, optional, intent(out) :: ierror
  integer(c_int) :: rc
  call cmio_f08_data(F08_READ_ALL, fh, -1_c_int64_t, buf, count, datatype, status, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_read_all_f08ts

subroutine mpi_file_read_at_all_f08ts(fh, offset, buf, count, datatype, status, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh, count, datatype
  integer(c_int64_t), intent(in) :: offset
  type(*), dimension(..) :: buf
  integer :: status(*)
  integer, optional, intent(out) :: ierror
  integer(c_int) :: rc
  call cmio_f08_data(F08_READ_AT_ALL, fh, offset, buf, count, datatype, status, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_read_at_all_f08ts

! ------------------------------------------------------ split collectives
! (a _begin has no status, an _end no count or datatype: zeros in their
! place, which fortran_f08.c does not read)

subroutine mpi_file_write_all_begin_f08ts(fh, buf, count, datatype, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh, count, datatype
  type(*), dimension(..), intent(in) :: buf
  integer, optional, intent(out) :: ierror
  integer(c_int) :: rc, none(5)
  none = 0
  call cmio_f08_data(F08_WRITE_ALL_BEGIN, fh, -1_c_int64_t, buf, count, datatype, none, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_write_all_begin_f08ts

subroutine mpi_file_write_all_end_f08ts(fh, buf, status, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh
  type(*), dimension(..), intent(in) :: buf
  integer :: status(*)
  integer, optional, intent(out) :: ierror
  integer(c_int) :: rc
  call cmio_f08_data(F08_WRITE_ALL_END, fh, -1_c_int64_t, buf, 0, 0, status, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_write_all_end_f08ts

subroutine mpi_file_write_at_all_begin_f08ts(fh, offset, buf, count, datatype, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh, count, datatype
  integer(c_int64_t), intent(in) :: offset
  type(*), dimension(..), intent(in) :: buf
  integer, optional, intent(out) :: ierror
  integer(c_int) :: rc, none(5)
  none = 0
  call cmio_f08_data(F08_WRITE_AT_ALL_BEGIN, fh, offset, buf, count, datatype, none, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_write_at_all_begin_f08ts

subroutine mpi_file_write_at_all_end_f08ts(fh, buf, status, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh
  type(*), dimension(..), intent(in) :: buf
  integer :: status(*)
  integer, optional, intent(out) :: ierror
  integer(c_int) :: rc
  call cmio_f08_data(F08_WRITE_AT_ALL_END, fh, -1_c_int64_t, buf, 0, 0, status, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_write_at_all_end_f08ts

subroutine mpi_file_read_all_begin_f08ts(fh, buf, count, datatype, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh, count, datatype
  type(*), dimension(..) :: buf
  integer, optional, intent(out) :: ierror
  integer(c_int) :: rc, none(5)
  none = 0
  call cmio_f08_data(F08_READ_ALL_BEGIN, fh, -1_c_int64_t, buf, count, datatype, none, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_read_all_begin_f08ts

subroutine mpi_file_read_all_end_f08ts(fh, buf, status, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh
  type(*), dimension(..) :: buf
  integer :: status(*)
  integer, optional, intent(out) :: ierror
  integer(c_int) :: rc
  call cmio_f08_data(F08_READ_ALL_END, fh, -1_c_int64_t, buf, 0, 0, status, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_read_all_end_f08ts

subroutine mpi_file_read_at_all_begin_f08ts(fh, offset, buf, count, datatype, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh, count, datatype
  integer(c_int64_t), intent(in) :: offset
  type(*), dimension(..) :: buf
  integer, optional, intent(out) :: ierror
  integer(c_int) :: rc, none(5)
  none = 0
  call cmio_f08_data(F08_READ_AT_ALL_BEGIN, fh, offset, buf, count, datatype, none, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_read_at_all_begin_f08ts

subroutine mpi_file_read_at_all_end_f08ts(fh, buf, status, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh
  type(*), dimension(..) :: buf
  integer :: status(*)
  integer, optional, intent(out) :: ierror
  integer(c_int) :: rc
  call cmio_f08_data(F08_READ_AT_ALL_END, fh, -1_c_int64_t, buf, 0, 0, status, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_read_at_all_end_f08ts

! ------------------------------------------------------ non-blocking calls
! (the request: the mpif.h integer of the C request; fortran_f08.c's
! cmio_f08_nb says what an array section gets)

subroutine mpi_file_iwrite_all_f08ts(fh, buf, count, datatype, request, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh, count, datatype
  type(*), dimension(..), intent(in), asynchronous :: buf
  integer, intent(out) :: request
  integer, optional, intent(out) :: ierror
  integer(c_int) :: rc
  call cmio_f08_nb(F08_IWRITE_ALL, fh, -1_c_int64_t, buf, count, datatype, request, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_iwrite_all_f08ts

subroutine mpi_file_iwrite_at_all_f08ts(fh, offset, buf, count, datatype, request, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh, count, datatype
  integer(c_int64_t), intent(in) :: offset
  type(*), dimension(..), intent(in), asynchronous :: buf
  integer, intent(out) :: request
  integer, optional, intent(out) :: ierror
  integer(c_int) :: rc
  call cmio_f08_nb(F08_IWRITE_AT_ALL, fh, offset, buf, count, datatype, request, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_iwrite_at_all_f08ts

subroutine mpi_file_iread_all_f08ts(fh, buf, count, datatype, request, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh, count, datatype
  type(*), dimension(..), asynchronous :: buf
  integer, intent(out) :: request
  integer, optional, intent(out) :: ierror
  integer(c_int) :: rc
  call cmio_f08_nb(F08_IREAD_ALL, fh, -1_c_int64_t, buf, count, datatype, request, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_iread_all_f08ts

subroutine mpi_file_iread_at_all_f08ts(fh, offset, buf, count, datatype, request, ierror)
  use cmio_f08_c
  implicit none
  integer, intent(in) :: fh, count, datatype
  integer(c_int64_t), intent(in) :: offset
  type(*), dimension(..), asynchronous :: buf
  integer, intent(out) :: request
  integer, optional, intent(out) :: ierror
  integer(c_int) :: rc
  call cmio_f08_nb(F08_IREAD_AT_ALL, fh, offset, buf, count, datatype, request, rc)
  if (present(ierror)) ierror = rc
end subroutine mpi_file_iread_at_all_f08ts
